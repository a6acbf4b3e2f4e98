# The two commands of the README. Each installs what it needs.
.PHONY: app demo test

## Build and start the desktop app with your configuration.
app:
	scripts/app.sh

## Start the app against the scripted model and recorded Sesame answers (no API key).
demo:
	DEMO=1 scripts/app.sh

## Run every test, including the native end-to-end test of the app.
test:
	scripts/test.sh
