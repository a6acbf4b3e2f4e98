# The two commands of the README. Each installs what it needs.
.PHONY: app demo test bundle

## Build (release; DEBUG=1 for a debug build) and start the desktop app with your configuration.
app:
	scripts/app.sh

## Start the app against the scripted model and recorded Sesame answers (no API key).
demo:
	DEMO=1 scripts/app.sh

## Run every test, including the native end-to-end test of the app.
test:
	scripts/test.sh

## Build the release packages (.deb and AppImage) under target/release/bundle/.
bundle:
	scripts/bundle.sh
