-- Model definitions and their prices (issue 7): a generation that reports usage but no cost is
-- priced with the definition its model name matches (domain::pricing). Rows with a NULL
-- project_id are the built-in definitions every project shares; a project's own rows win over them.
CREATE TABLE models (
    id                TEXT PRIMARY KEY,
    project_id        TEXT REFERENCES projects (id) ON DELETE CASCADE,
    model_name        TEXT NOT NULL,
    -- a regular expression (Rust `regex` syntax, `(?i)` for case-insensitive) on the model name
    match_pattern     TEXT NOT NULL,
    -- the definition applies to generations that started at or after this instant (NULL: always)
    start_date        TIMESTAMPTZ,
    unit              TEXT NOT NULL DEFAULT 'TOKENS'
                      CHECK (unit IN ('CHARACTERS', 'TOKENS', 'MILLISECONDS', 'SECONDS', 'IMAGES', 'REQUESTS')),
    -- USD per unit, by usage type: {"input": 2.5e-06, "output": 1e-05, "input_cached_tokens": …}
    prices            JSONB NOT NULL DEFAULT '{}'::jsonb,
    tokenizer_id      TEXT,
    tokenizer_config  JSONB,
    created_at        TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at        TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX models_project_idx ON models (project_id, model_name);

-- Built-in prices as published by the providers (USD per token). Names match with or without a
-- provider prefix and with a dated snapshot suffix. Later price changes come as new rows with a
-- start_date in a later migration; released rows are never edited.
INSERT INTO models (id, model_name, match_pattern, prices, tokenizer_id) VALUES
    ('builtin-gpt-4o', 'gpt-4o', '(?i)^(openai/)?gpt-4o(-\d{4}-\d{2}-\d{2})?$',
     '{"input": 2.5e-06, "input_cached_tokens": 1.25e-06, "output": 1e-05}', 'openai'),
    ('builtin-gpt-4o-mini', 'gpt-4o-mini', '(?i)^(openai/)?gpt-4o-mini(-\d{4}-\d{2}-\d{2})?$',
     '{"input": 1.5e-07, "input_cached_tokens": 7.5e-08, "output": 6e-07}', 'openai'),
    ('builtin-gpt-4.1', 'gpt-4.1', '(?i)^(openai/)?gpt-4\.1(-\d{4}-\d{2}-\d{2})?$',
     '{"input": 2e-06, "input_cached_tokens": 5e-07, "output": 8e-06}', 'openai'),
    ('builtin-gpt-4.1-mini', 'gpt-4.1-mini', '(?i)^(openai/)?gpt-4\.1-mini(-\d{4}-\d{2}-\d{2})?$',
     '{"input": 4e-07, "input_cached_tokens": 1e-07, "output": 1.6e-06}', 'openai'),
    ('builtin-gpt-4.1-nano', 'gpt-4.1-nano', '(?i)^(openai/)?gpt-4\.1-nano(-\d{4}-\d{2}-\d{2})?$',
     '{"input": 1e-07, "input_cached_tokens": 2.5e-08, "output": 4e-07}', 'openai'),
    ('builtin-gpt-5', 'gpt-5', '(?i)^(openai/)?gpt-5(-\d{4}-\d{2}-\d{2})?$',
     '{"input": 1.25e-06, "input_cached_tokens": 1.25e-07, "output": 1e-05}', 'openai'),
    ('builtin-gpt-5-mini', 'gpt-5-mini', '(?i)^(openai/)?gpt-5-mini(-\d{4}-\d{2}-\d{2})?$',
     '{"input": 2.5e-07, "input_cached_tokens": 2.5e-08, "output": 2e-06}', 'openai'),
    ('builtin-gpt-5-nano', 'gpt-5-nano', '(?i)^(openai/)?gpt-5-nano(-\d{4}-\d{2}-\d{2})?$',
     '{"input": 5e-08, "input_cached_tokens": 5e-09, "output": 4e-07}', 'openai'),
    ('builtin-o3', 'o3', '(?i)^(openai/)?o3(-\d{4}-\d{2}-\d{2})?$',
     '{"input": 2e-06, "input_cached_tokens": 5e-07, "output": 8e-06}', 'openai'),
    ('builtin-o4-mini', 'o4-mini', '(?i)^(openai/)?o4-mini(-\d{4}-\d{2}-\d{2})?$',
     '{"input": 1.1e-06, "input_cached_tokens": 2.75e-07, "output": 4.4e-06}', 'openai'),
    ('builtin-gpt-4-turbo', 'gpt-4-turbo', '(?i)^(openai/)?gpt-4-turbo(-\d{4}-\d{2}-\d{2})?$',
     '{"input": 1e-05, "output": 3e-05}', 'openai'),
    ('builtin-gpt-3.5-turbo', 'gpt-3.5-turbo', '(?i)^(openai/)?gpt-3\.5-turbo(-\d{4})?$',
     '{"input": 5e-07, "output": 1.5e-06}', 'openai'),
    ('builtin-text-embedding-3-small', 'text-embedding-3-small', '(?i)^(openai/)?text-embedding-3-small$',
     '{"input": 2e-08, "total": 2e-08}', 'openai'),
    ('builtin-text-embedding-3-large', 'text-embedding-3-large', '(?i)^(openai/)?text-embedding-3-large$',
     '{"input": 1.3e-07, "total": 1.3e-07}', 'openai'),
    ('builtin-claude-opus-4', 'claude-opus-4', '(?i)^(anthropic/)?claude-opus-4(-1)?(-\d{8})?$',
     '{"input": 1.5e-05, "input_cache_read": 1.5e-06, "input_cache_creation": 1.875e-05, "output": 7.5e-05}', 'claude'),
    ('builtin-claude-sonnet-4', 'claude-sonnet-4', '(?i)^(anthropic/)?claude-sonnet-4(-5)?(-\d{8})?$',
     '{"input": 3e-06, "input_cache_read": 3e-07, "input_cache_creation": 3.75e-06, "output": 1.5e-05}', 'claude'),
    ('builtin-claude-3-7-sonnet', 'claude-3-7-sonnet', '(?i)^(anthropic/)?claude-3-7-sonnet(-\d{8})?(-latest)?$',
     '{"input": 3e-06, "input_cache_read": 3e-07, "input_cache_creation": 3.75e-06, "output": 1.5e-05}', 'claude'),
    ('builtin-claude-3-5-sonnet', 'claude-3-5-sonnet', '(?i)^(anthropic/)?claude-3-5-sonnet(-\d{8})?(-latest)?$',
     '{"input": 3e-06, "input_cache_read": 3e-07, "input_cache_creation": 3.75e-06, "output": 1.5e-05}', 'claude'),
    ('builtin-claude-3-5-haiku', 'claude-3-5-haiku', '(?i)^(anthropic/)?claude-3-5-haiku(-\d{8})?(-latest)?$',
     '{"input": 8e-07, "input_cache_read": 8e-08, "input_cache_creation": 1e-06, "output": 4e-06}', 'claude'),
    ('builtin-claude-3-haiku', 'claude-3-haiku', '(?i)^(anthropic/)?claude-3-haiku(-\d{8})?$',
     '{"input": 2.5e-07, "input_cache_read": 3e-08, "input_cache_creation": 3e-07, "output": 1.25e-06}', 'claude'),
    ('builtin-gemini-2.5-pro', 'gemini-2.5-pro', '(?i)^(google/)?gemini-2\.5-pro(-[a-z0-9-]+)?$',
     '{"input": 1.25e-06, "output": 1e-05}', NULL),
    ('builtin-gemini-2.5-flash', 'gemini-2.5-flash', '(?i)^(google/)?gemini-2\.5-flash(-\d{3}|-preview[a-z0-9-]*)?$',
     '{"input": 3e-07, "output": 2.5e-06}', NULL),
    ('builtin-gemini-2.0-flash', 'gemini-2.0-flash', '(?i)^(google/)?gemini-2\.0-flash(-\d{3})?$',
     '{"input": 1e-07, "output": 4e-07}', NULL),
    ('builtin-gemini-1.5-pro', 'gemini-1.5-pro', '(?i)^(google/)?gemini-1\.5-pro(-\d{3}|-latest)?$',
     '{"input": 1.25e-06, "output": 5e-06}', NULL),
    ('builtin-gemini-1.5-flash', 'gemini-1.5-flash', '(?i)^(google/)?gemini-1\.5-flash(-\d{3}|-latest)?$',
     '{"input": 7.5e-08, "output": 3e-07}', NULL);
