-- 0007_events_core_mv: materialized view events_full -> events_core.
-- Source: /work/shared/reference/storage.md section 2.3.
--
-- Copies every stored column 1:1 except:
--   input, output      -> first 200 UTF-8 characters (leftUTF8)
--   metadata_values    -> each element cut to 200 UTF-8 characters
-- Not truncated: metadata_names, experiment_item_expected_output, the experiment
-- metadata arrays, tool columns, skills columns.
-- The MATERIALIZED columns (calculated_*_cost, input_length, output_length) and the
-- ALIAS total_cost are not selected: events_core computes its own.
-- Column order of the SELECT follows the final upstream view (0052): skills after
-- tool_call_names, evaluator columns after metadata_values. A TO view matches target
-- columns by name, so the order has no functional effect.
-- Query setting enable_full_text_index = 1, as upstream (the target has text indexes).
--
-- Deviation from the strict "CREATE IF NOT EXISTS / ADD ... IF NOT EXISTS only" rule:
-- the second statement re-sets the view query with ALTER TABLE ... MODIFY QUERY.
-- Reason: an events_core_mv left by an earlier preview has an older SELECT without the
-- ingestion, evaluator and skills columns, and CREATE IF NOT EXISTS would keep it, so
-- those columns would silently arrive in events_core as defaults forever. Upstream
-- did the same (MODIFY QUERY in its 0042, 0047, 0052). The statement is idempotent
-- (same query each run, SHOW CREATE is unchanged on re-run), touches no data and only
-- changes what future inserts into events_full produce. It needs events_core to have
-- all columns already, which 0006 guarantees.

CREATE MATERIALIZED VIEW IF NOT EXISTS events_core_mv {ON_CLUSTER} TO events_core AS
SELECT
    project_id,
    trace_id,
    span_id,
    parent_span_id,
    start_time,
    end_time,
    name,
    type,
    environment,
    version,
    release,
    trace_name,
    user_id,
    session_id,
    tags,
    level,
    status_message,
    completion_start_time,
    is_app_root,
    bookmarked,
    public,
    prompt_id,
    prompt_name,
    prompt_version,
    model_id,
    provided_model_name,
    model_parameters,
    provided_usage_details,
    usage_details,
    provided_cost_details,
    cost_details,
    usage_pricing_tier_id,
    usage_pricing_tier_name,
    tool_definitions,
    tool_calls,
    tool_call_names,
    skills_available,
    skills_resource_loaded,
    leftUTF8(input, 200) AS input,
    leftUTF8(output, 200) AS output,
    metadata_names,
    arrayMap(v -> leftUTF8(v, 200), metadata_values) AS metadata_values,
    evaluator_id,
    evaluation_rule_id,
    evaluator_execution_is_test,
    experiment_id,
    experiment_name,
    experiment_metadata_names,
    experiment_metadata_values,
    experiment_description,
    experiment_dataset_id,
    experiment_item_id,
    experiment_item_version,
    experiment_item_expected_output,
    experiment_item_metadata_names,
    experiment_item_metadata_values,
    experiment_item_root_span_id,
    source,
    service_name,
    service_version,
    scope_name,
    scope_version,
    telemetry_sdk_language,
    telemetry_sdk_name,
    telemetry_sdk_version,
    blob_storage_file_path,
    event_bytes,
    created_at,
    updated_at,
    event_ts,
    is_deleted,
    ingestion_api_key,
    ingestion_sdk_name,
    ingestion_sdk_version
FROM events_full
SETTINGS enable_full_text_index = 1;

-- Bring a view created by an earlier preview to the current query (see header).
ALTER TABLE events_core_mv {ON_CLUSTER} MODIFY QUERY
SELECT
    project_id,
    trace_id,
    span_id,
    parent_span_id,
    start_time,
    end_time,
    name,
    type,
    environment,
    version,
    release,
    trace_name,
    user_id,
    session_id,
    tags,
    level,
    status_message,
    completion_start_time,
    is_app_root,
    bookmarked,
    public,
    prompt_id,
    prompt_name,
    prompt_version,
    model_id,
    provided_model_name,
    model_parameters,
    provided_usage_details,
    usage_details,
    provided_cost_details,
    cost_details,
    usage_pricing_tier_id,
    usage_pricing_tier_name,
    tool_definitions,
    tool_calls,
    tool_call_names,
    skills_available,
    skills_resource_loaded,
    leftUTF8(input, 200) AS input,
    leftUTF8(output, 200) AS output,
    metadata_names,
    arrayMap(v -> leftUTF8(v, 200), metadata_values) AS metadata_values,
    evaluator_id,
    evaluation_rule_id,
    evaluator_execution_is_test,
    experiment_id,
    experiment_name,
    experiment_metadata_names,
    experiment_metadata_values,
    experiment_description,
    experiment_dataset_id,
    experiment_item_id,
    experiment_item_version,
    experiment_item_expected_output,
    experiment_item_metadata_names,
    experiment_item_metadata_values,
    experiment_item_root_span_id,
    source,
    service_name,
    service_version,
    scope_name,
    scope_version,
    telemetry_sdk_language,
    telemetry_sdk_name,
    telemetry_sdk_version,
    blob_storage_file_path,
    event_bytes,
    created_at,
    updated_at,
    event_ts,
    is_deleted,
    ingestion_api_key,
    ingestion_sdk_name,
    ingestion_sdk_version
FROM events_full
SETTINGS enable_full_text_index = 1;
