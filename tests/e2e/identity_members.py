"""Memberships and SCIM with the real Langfuse Python SDK (`langfuse.api`): with an organization key,
provision a user by SCIM, find them by `userName eq`, give them an organization role and a project
role, list both, remove the project role and the membership, and read the SCIM discovery documents.
Prints what it saw as JSON.

Usage: python identity_members.py  (reads LOUPE_URL, LOUPE_ORG_PUBLIC_KEY, LOUPE_ORG_SECRET_KEY,
LOUPE_PROJECT_ID)
"""
import json
import os

from langfuse.api import LangfuseAPI, MembershipRole, NotFoundError, ScimName

org = LangfuseAPI(
    base_url=os.environ["LOUPE_URL"],
    username=os.environ["LOUPE_ORG_PUBLIC_KEY"],
    password=os.environ["LOUPE_ORG_SECRET_KEY"],
)
project_id = os.environ["LOUPE_PROJECT_ID"]

config = org.scim.get_service_provider_config()
types = org.scim.get_resource_types()
schemas = org.scim.get_schemas()
created = org.scim.create_user(user_name="ada@example.com", name=ScimName(formatted="Ada Lovelace"))
found = org.scim.list_users(filter='userName eq "ada@example.com"')
none_found = org.scim.list_users(filter='userName eq "nobody@example.com"')
fetched = org.scim.get_user(created.id)
listed_before_role = org.organizations.get_organization_memberships()
member = org.organizations.update_organization_membership(user_id=created.id, role=MembershipRole.MEMBER)
listed = org.organizations.get_organization_memberships()
project_member = org.organizations.update_project_membership(project_id, user_id=created.id, role=MembershipRole.ADMIN)
project_listed = org.organizations.get_project_memberships(project_id)
project_removed = org.organizations.delete_project_membership(project_id, user_id=created.id)
removed = org.organizations.delete_organization_membership(user_id=created.id)
try:
    org.scim.get_user(created.id)
    gone = False
except NotFoundError:
    gone = True
again = org.scim.create_user(user_name="ada@example.com", name=ScimName(formatted="Ada Lovelace"))
deleted = org.scim.delete_user(again.id)

print(json.dumps({
    "filterSupported": config.filter.supported,
    "resourceTypes": [t.id for t in types.resources],
    "schemas": [s.id for s in schemas.resources],
    "created": {"userName": created.user_name, "name": created.name.formatted,
                "emails": [e.value for e in created.emails]},
    "found": [u.id == created.id for u in found.resources],
    "foundTotal": found.total_results,
    "noneFound": none_found.total_results,
    "fetched": fetched.user_name,
    "membersBeforeRole": [m.email for m in listed_before_role.memberships],
    "member": {"role": str(member.role), "email": member.email, "name": member.name},
    "members": sorted([m.email, str(m.role)] for m in listed.memberships),
    "projectMember": str(project_member.role),
    "projectMembers": [[m.email, str(m.role)] for m in project_listed.memberships],
    "projectRemoved": project_removed.user_id,
    "removed": removed.message,
    "gone": gone,
    "againSameUser": again.id == created.id,
    "deleted": deleted is not None,
}))
