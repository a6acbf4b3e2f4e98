-- A tool result row no longer repeats its call's arguments in `metadata`: they are the
-- assistant row's (`tool_calls`, and `raw_json` as the model sent them). A 250 KB
-- argument was stored three times.
UPDATE agent_messages
SET metadata = json_remove(metadata, '$.arguments')
WHERE role = 'tool' AND json_type(metadata, '$.arguments') IS NOT NULL;
