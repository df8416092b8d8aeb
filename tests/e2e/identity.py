"""Organization-key routes with the real Langfuse Python SDK (`langfuse.api`, whose pydantic models
parse every answer): with an organization key, create a project, change it, create a project key,
list the project's keys and the organization's projects and keys, use the new key, delete it and
see it refused, see a project key refused on an organization route, and delete the project.
Prints what it saw as JSON.

Usage: python identity.py  (reads LOUPE_URL, LOUPE_ORG_PUBLIC_KEY, LOUPE_ORG_SECRET_KEY)
"""
import json
import os

from langfuse.api import AccessDeniedError, LangfuseAPI, NotFoundError, UnauthorizedError

url = os.environ["LOUPE_URL"]
org = LangfuseAPI(
    base_url=url, username=os.environ["LOUPE_ORG_PUBLIC_KEY"], password=os.environ["LOUPE_ORG_SECRET_KEY"]
)

created = org.projects.create(name="sdk-project", retention=0, metadata={"team": "sdk"})
updated = org.projects.update(created.id, name="sdk-renamed", retention=7)
key = org.projects.create_api_key(created.id, name="ci")
keys = org.projects.get_api_keys(created.id)
organization_projects = org.organizations.get_organization_projects()
organization_keys = org.organizations.get_organization_api_keys()

project = LangfuseAPI(base_url=url, username=key.public_key, password=key.secret_key)
seen = project.projects.get()
try:
    project.projects.create(name="not-allowed", retention=0)
    project_key_on_org_route = None
except AccessDeniedError as error:
    project_key_on_org_route = error.body

deleted_key = org.projects.delete_api_key(created.id, key.id)
try:
    project.projects.get()
    deleted_key_refused = False
except UnauthorizedError:
    deleted_key_refused = True
try:
    org.projects.get_api_keys("no-such-project")
    missing_project = None
except NotFoundError as error:
    missing_project = error.body

deleted_project = org.projects.delete(created.id)

print(json.dumps({
    "created": {"id": created.id, "name": created.name, "organization": created.organization.id,
                "metadata": created.metadata, "retentionDays": created.retention_days},
    "updated": {"name": updated.name, "retentionDays": updated.retention_days, "metadata": updated.metadata},
    "key": {"publicKey": key.public_key, "secretKey": key.secret_key, "display": key.display_secret_key,
            "name": key.name, "note": key.note},
    "keys": [{"id": k.id, "publicKey": k.public_key, "display": k.display_secret_key, "name": k.name,
              "lastUsedAt": k.last_used_at is not None} for k in keys.api_keys],
    "organizationProjects": [p.name for p in organization_projects.projects],
    "organizationKeys": [k.public_key for k in organization_keys.api_keys],
    "seenProject": seen.data[0].id,
    "projectKeyOnOrgRoute": project_key_on_org_route,
    "deletedKey": deleted_key.success,
    "deletedKeyRefused": deleted_key_refused,
    "missingProject": missing_project,
    "deletedProject": {"success": deleted_project.success, "message": deleted_project.message},
}))
