"""Blob storage integrations with the real Langfuse Python SDK 5 (`langfuse.api`, whose pydantic
models parse every answer): with an organization key, upsert an export to the test stack's bucket,
list it, wait for its first run through the status route, see bad input and a source the write mode
cannot serve refused, a project key refused, and delete it. Prints what it saw as JSON.

Usage: python blob_storage.py  (reads LOUPE_URL, LOUPE_ORG_PUBLIC_KEY, LOUPE_ORG_SECRET_KEY,
LOUPE_PROJECT_ID, LOUPE_S3_BUCKET, LOUPE_S3_ENDPOINT, LOUPE_S3_REGION, LOUPE_S3_ACCESS_KEY_ID,
LOUPE_S3_SECRET_ACCESS_KEY, LOUPE_EXPORT_PREFIX, LOUPE_EXPORT_START)
"""
import datetime
import json
import os
import time

from langfuse.api import AccessDeniedError, Error, LangfuseAPI, NotFoundError

env = os.environ
url = env["LOUPE_URL"]
org = LangfuseAPI(base_url=url, username=env["LOUPE_ORG_PUBLIC_KEY"], password=env["LOUPE_ORG_SECRET_KEY"])
project_id = env["LOUPE_PROJECT_ID"]


def upsert(client, **changes):
    fields = dict(
        project_id=project_id,
        type="S3_COMPATIBLE",
        bucket_name=env["LOUPE_S3_BUCKET"],
        endpoint=env["LOUPE_S3_ENDPOINT"],
        region=env["LOUPE_S3_REGION"],
        access_key_id=env["LOUPE_S3_ACCESS_KEY_ID"],
        secret_access_key=env["LOUPE_S3_SECRET_ACCESS_KEY"],
        prefix=env["LOUPE_EXPORT_PREFIX"],
        export_frequency="hourly",
        enabled=True,
        force_path_style=True,
        file_type="JSONL",
        export_mode="FROM_CUSTOM_DATE",
        export_start_date=datetime.datetime.fromisoformat(env["LOUPE_EXPORT_START"]),
    )
    fields.update(changes)
    return client.blob_storage_integrations.upsert_blob_storage_integration(**fields)


def refused(call):
    try:
        call()
        return None
    except (Error, AccessDeniedError, NotFoundError) as error:
        return {"status": error.status_code, "body": error.body}


created = upsert(org)
listed = org.blob_storage_integrations.get_blob_storage_integrations()
first_status = org.blob_storage_integrations.get_blob_storage_integration_status(created.id)

# The first run starts within two minutes of enabling.
started = time.monotonic()
status = first_status
while status.last_sync_at is None and time.monotonic() - started < 150:
    time.sleep(1)
    status = org.blob_storage_integrations.get_blob_storage_integration_status(created.id)
waited = time.monotonic() - started

bad_prefix = refused(lambda: upsert(org, prefix="no-trailing-slash"))
bad_custom_date = refused(lambda: upsert(org, export_start_date=None))
legacy_source = refused(lambda: upsert(org, export_source="LEGACY_TRACES_OBSERVATIONS"))
groups_without_core = refused(lambda: upsert(org, export_source="OBSERVATIONS_V2", export_field_groups=["io"]))
gcs = refused(lambda: upsert(org, type="GOOGLE_CLOUD_STORAGE"))

project = LangfuseAPI(base_url=url, username=env["LOUPE_PUBLIC_KEY"], password=env["LOUPE_SECRET_KEY"])
project_key = refused(lambda: project.blob_storage_integrations.get_blob_storage_integrations())

deleted = org.blob_storage_integrations.delete_blob_storage_integration(created.id)
status_after_delete = refused(lambda: org.blob_storage_integrations.get_blob_storage_integration_status(created.id))

print(
    json.dumps(
        {
            "created": created.dict(by_alias=True),
            "listed": [i.id for i in listed.data],
            "firstStatus": first_status.sync_status,
            "status": status.dict(by_alias=True),
            "waitedSeconds": waited,
            "badPrefix": bad_prefix,
            "badCustomDate": bad_custom_date,
            "legacySource": legacy_source,
            "groupsWithoutCore": groups_without_core,
            "gcs": gcs,
            "projectKey": project_key,
            "deleted": deleted.message,
            "statusAfterDelete": status_after_delete,
        },
        default=str,
    )
)
