-- A model call a tool made (rag_search writing its answer) is measured as a model call
-- with the tool that made it; NULL for the agent's own calls and for tool rows. Rows of
-- kind 'wait' hold the time a call waited for the user's permission, apart from its
-- running time.
ALTER TABLE agent_metrics ADD COLUMN via TEXT;
