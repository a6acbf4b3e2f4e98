-- A tool result row no longer repeats its call's arguments in `metadata`: they are the
-- assistant row's (`tool_calls`, and `raw_json` as the model sent them). A 250 KB
-- argument was stored three times. A row whose metadata is not JSON (a hand-made bundle
-- imported by an earlier release) is left as it is: the CASE keeps json_type from
-- reading it, which would fail the migration and the database with it.
UPDATE agent_messages
SET metadata = json_remove(metadata, '$.arguments')
WHERE role = 'tool'
  AND CASE WHEN json_valid(metadata) THEN json_type(metadata, '$.arguments') IS NOT NULL
      ELSE 0 END;
