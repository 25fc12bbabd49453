-- The integration holding a conversation after a flow handed it over (an `openai` or `typebot`
-- node): its session as JSON (`core::integrations::IntegrationSession`), '' when none.
ALTER TABLE tickets ADD COLUMN integration_session TEXT NOT NULL DEFAULT '';
