//! Attribute keys and their priority orders, kept as data so they can be audited line by line
//! against reference/public-api.md §3.3–3.6 and reference/storage.md §7.3. Lists are in priority order: the first key
//! that carries a value wins.

// The `langfuse.*` contract (reference/public-api.md §3.4).
pub const TRACE_NAME: &str = "langfuse.trace.name";
pub const TRACE_INPUT: &str = "langfuse.trace.input";
pub const TRACE_OUTPUT: &str = "langfuse.trace.output";
pub const TRACE_METADATA: &str = "langfuse.trace.metadata";
pub const TRACE_PUBLIC: &str = "langfuse.trace.public";
pub const TRACE_TAGS: &str = "langfuse.trace.tags";
pub const OBSERVATION_TYPE: &str = "langfuse.observation.type";
pub const OBSERVATION_LEVEL: &str = "langfuse.observation.level";
pub const OBSERVATION_STATUS_MESSAGE: &str = "langfuse.observation.status_message";
pub const OBSERVATION_INPUT: &str = "langfuse.observation.input";
pub const OBSERVATION_OUTPUT: &str = "langfuse.observation.output";
pub const OBSERVATION_METADATA: &str = "langfuse.observation.metadata";
pub const OBSERVATION_MODEL: &str = "langfuse.observation.model.name";
pub const OBSERVATION_MODEL_PARAMETERS: &str = "langfuse.observation.model.parameters";
pub const OBSERVATION_USAGE_DETAILS: &str = "langfuse.observation.usage_details";
pub const OBSERVATION_COST_DETAILS: &str = "langfuse.observation.cost_details";
pub const OBSERVATION_COMPLETION_START_TIME: &str = "langfuse.observation.completion_start_time";
pub const OBSERVATION_PROMPT_NAME: &str = "langfuse.observation.prompt.name";
pub const OBSERVATION_PROMPT_VERSION: &str = "langfuse.observation.prompt.version";
pub const LEGACY_PROMPT_NAME: &str = "langfuse.prompt.name";
pub const LEGACY_PROMPT_VERSION: &str = "langfuse.prompt.version";
pub const AI_SDK_PROMPT: &str = "ai.telemetry.metadata.langfusePrompt";
pub const GENERIC_METADATA: &str = "langfuse.metadata";
pub const AI_SDK_METADATA: &str = "ai.telemetry.metadata";
pub const VERSION: &str = "langfuse.version";
pub const RELEASE: &str = "langfuse.release";
pub const AS_ROOT: &str = "langfuse.internal.as_root";
pub const IS_APP_ROOT: &str = "langfuse.internal.is_app_root";
pub const EXPERIMENT_PREFIX: &str = "langfuse.experiment";
/// LiteLLM puts the trace id it wants in this attribute (reference/public-api.md §3.2).
pub const LITELLM_TRACE_ID: &str = "langfuse.trace.id";
pub const LITELLM_SCOPE: &str = "litellm";

/// Scopes whose name starts with this are Langfuse SDK spans: their raw attributes are not
/// copied into metadata (reference/public-api.md §3.3).
pub const LANGFUSE_SDK_SCOPE_PREFIX: &str = "langfuse-sdk";
/// Vercel AI SDK and Pydantic AI scope names, which switch on framework-specific rules.
pub const VERCEL_AI_SCOPE: &str = "ai";
pub const PYDANTIC_AI_SCOPE: &str = "pydantic-ai";
pub const LIVEKIT_SCOPE: &str = "livekit-agents";

// Resource attributes.
pub const SERVICE_NAME: &str = "service.name";
pub const SERVICE_VERSION: &str = "service.version";
pub const TELEMETRY_SDK_LANGUAGE: &str = "telemetry.sdk.language";
pub const TELEMETRY_SDK_NAME: &str = "telemetry.sdk.name";
pub const TELEMETRY_SDK_VERSION: &str = "telemetry.sdk.version";

/// Environment: each key on the span, then on the resource, else `default`.
pub const ENVIRONMENT_KEYS: &[&str] =
    &["langfuse.environment", "deployment.environment.name", "deployment.environment"];
pub const DEFAULT_ENVIRONMENT: &str = "default";

pub const USER_ID_KEYS: &[&str] = &[
    "langfuse.user.id",
    "user.id",
    "langfuse.observation.metadata.langfuse_user_id",
    "langfuse.trace.metadata.langfuse_user_id",
    "ai.telemetry.metadata.userId",
];

pub const SESSION_ID_KEYS: &[&str] = &[
    "langfuse.session.id",
    "session.id",
    "gen_ai.conversation.id",
    "langfuse.observation.metadata.langfuse_session_id",
    "langfuse.trace.metadata.langfuse_session_id",
    "ai.telemetry.metadata.sessionId",
];

pub const TAG_KEYS: &[&str] = &[
    TRACE_TAGS,
    "langfuse.tags",
    "langfuse.observation.metadata.langfuse_tags",
    "langfuse.trace.metadata.langfuse_tags",
    "ai.telemetry.metadata.tags",
    "tag.tags",
];

pub const PUBLIC_KEYS: &[&str] = &[TRACE_PUBLIC, "langfuse.public"];

/// Any of these (truthy), or any key starting with `langfuse.trace.metadata`, makes a span a
/// trace update (reference/public-api.md §3.3).
pub const TRACE_UPDATE_KEYS: &[&str] = &[
    TRACE_NAME,
    TRACE_INPUT,
    TRACE_OUTPUT,
    TRACE_METADATA,
    "user.id",
    "session.id",
    TRACE_PUBLIC,
    TRACE_TAGS,
    "langfuse.user.id",
    "langfuse.session.id",
    "langfuse.observation.metadata.langfuse_user_id",
    "langfuse.observation.metadata.langfuse_session_id",
    "langfuse.observation.metadata.langfuse_tags",
    "langfuse.trace.metadata.langfuse_session_id",
    "langfuse.trace.metadata.langfuse_user_id",
    "langfuse.trace.metadata.langfuse_tags",
    "ai.telemetry.metadata.sessionId",
    "ai.telemetry.metadata.userId",
    "ai.telemetry.metadata.tags",
    "tag.tags",
];

/// Vercel AI SDK keys that carry trace attributes and so are not copied into metadata.
pub const AI_SDK_NON_METADATA_KEYS: &[&str] = &[
    "ai.telemetry.metadata.userId",
    "ai.telemetry.metadata.sessionId",
    "ai.telemetry.metadata.tags",
    "ai.telemetry.metadata.langfusePrompt",
];

pub const MODEL_NAME_KEYS: &[&str] = &[
    OBSERVATION_MODEL,
    "gen_ai.response.model",
    "ai.model.id",
    "gen_ai.request.model",
    "llm.response.model",
    "llm.model_name",
    "model",
];

/// Observation name overrides, before the span name (`ai.*` handled in code: it combines two keys).
pub const NAME_KEYS: &[&str] = &["gen_ai.tool.name", "logfire.msg"];

/// LiveKit spans stored at level DEBUG when no level is given.
pub const LIVEKIT_DEBUG_SPAN_NAMES: &[&str] = &[
    "user_speaking",
    "eou_detection",
    "llm_request_run",
    "tts_node",
    "tts_request",
    "tts_request_run",
    "tts_stream_adapter",
    "agent_speaking",
    "drain_agent_activity",
    "on_exit",
    "on_enter",
    "llm_fallback_adapter",
    "tts_fallback_adapter",
    "start_agent_activity",
];

/// Generic usage attributes: every key under these prefixes (except the cost), renamed below.
pub const USAGE_PREFIXES: &[&str] = &["gen_ai.usage", "llm.token_count"];
pub const USAGE_COST: &str = "gen_ai.usage.cost";
pub const USAGE_KEY_RENAMES: &[(&str, &str)] = &[
    ("prompt_tokens", "input"),
    ("completion_tokens", "output"),
    ("total_tokens", "total"),
    ("input_tokens", "input"),
    ("output_tokens", "output"),
    ("prompt", "input"),
    ("completion", "output"),
];

/// Vercel AI SDK model parameters: (stored name, source keys in priority order).
pub const AI_SDK_MODEL_PARAMETERS: &[(&str, &[&str])] = &[
    ("maxSteps", &["ai.settings.maxSteps"]),
    ("toolChoice", &["ai.prompt.toolChoice"]),
    ("maxTokens", &["gen_ai.request.max_tokens"]),
    ("finishReason", &["gen_ai.response.finish_reasons", "gen_ai.finishReason"]),
    ("system", &["gen_ai.system", "ai.model.provider"]),
    ("maxRetries", &["ai.settings.maxRetries"]),
    ("mode", &["ai.settings.mode"]),
    ("temperature", &["gen_ai.request.temperature"]),
];
/// JSON-object model parameters from other frameworks, after the Langfuse key.
pub const JSON_MODEL_PARAMETER_KEYS: &[&str] = &["llm.invocation_parameters", "model_config"];
pub const GEN_AI_REQUEST_PREFIX: &str = "gen_ai.request";

/// Attributes holding input/output, left out of the `attributes.*` metadata copy for non-SDK spans
/// because they are already stored as input/output.
pub const IO_KEYS: &[&str] = &[
    TRACE_INPUT,
    TRACE_OUTPUT,
    OBSERVATION_INPUT,
    OBSERVATION_OUTPUT,
    "ai.prompt.messages",
    "ai.prompt",
    "ai.toolCall.args",
    "ai.response.text",
    "ai.result.text",
    "ai.toolCall.result",
    "ai.response.object",
    "ai.result.object",
    "ai.response.toolCalls",
    "ai.result.toolCalls",
    "gcp.vertex.agent.llm_request",
    "gcp.vertex.agent.llm_response",
    "gcp.vertex.agent.tool_call_args",
    "gcp.vertex.agent.tool_response",
    "prompt",
    "all_messages_events",
    "events",
    "lk.input_text",
    "lk.user_transcript",
    "lk.chat_ctx",
    "lk.user_input",
    "lk.function_tool.output",
    "lk.response.text",
    "mlflow.spanInputs",
    "mlflow.spanOutputs",
    "traceloop.entity.input",
    "traceloop.entity.output",
    "input.value",
    "output.value",
    "final_result",
    "pydantic_ai.all_messages",
    "input",
    "output",
    "gen_ai.input.messages",
    "gen_ai.output.messages",
    "gen_ai.tool.call.arguments",
    "gen_ai.tool.call.result",
];
/// Key prefixes (matched as plain string prefixes, like upstream) also treated as input/output.
pub const IO_KEY_PREFIXES: &[&str] =
    &["gen_ai.prompt", "gen_ai.completion", "llm.input_messages", "llm.output_messages"];
