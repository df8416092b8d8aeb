"""Score configs and comments with the real Langfuse Python SDK (`langfuse.api`, whose pydantic
models parse every answer): create a CATEGORICAL and a BOOLEAN config, read one back by id and
both in the list, archive one; create two comments on a trace, list and fetch them, and ask for a
missing one. Prints what it saw as JSON.

Usage: python comments_and_score_configs.py  (reads LOUPE_URL, LOUPE_PUBLIC_KEY, LOUPE_SECRET_KEY)
"""
import json
import os

from langfuse import Langfuse
from langfuse.api import ConfigCategory, NotFoundError, ScoreConfigDataType

langfuse = Langfuse(
    public_key=os.environ["LOUPE_PUBLIC_KEY"],
    secret_key=os.environ["LOUPE_SECRET_KEY"],
    base_url=os.environ["LOUPE_URL"],
)
api = langfuse.api


def categories(config):
    return [[category.label, category.value] for category in config.categories or []]


config = api.score_configs.create(
    name="helpfulness",
    data_type=ScoreConfigDataType.CATEGORICAL,
    categories=[ConfigCategory(label="good", value=1), ConfigCategory(label="bad", value=0)],
    description="Was the answer helpful?",
)
boolean = api.score_configs.create(name="correct", data_type=ScoreConfigDataType.BOOLEAN)
fetched = api.score_configs.get_by_id(config.id)
assert fetched == config, (fetched, config)
archived = api.score_configs.update(boolean.id, is_archived=True)
configs = api.score_configs.get(page=1, limit=10)

project_id = api.projects.get().data[0].id
first = api.comments.create(
    project_id=project_id, object_type="TRACE", object_id="t-1", content="first", author_user_id="ada"
)
api.comments.create(project_id=project_id, object_type="TRACE", object_id="t-1", content="second")
api.comments.create(project_id=project_id, object_type="SESSION", object_id="s-1", content="elsewhere")
comments = api.comments.get(object_type="TRACE", object_id="t-1", page=1, limit=10)
fetched_comment = api.comments.get_by_id(first.id)
try:
    api.comments.get_by_id("no-such-comment")
    missing_status = 200
except NotFoundError as error:
    missing_status = error.status_code

print(
    json.dumps(
        {
            "config": {"data_type": config.data_type.value, "categories": categories(config)},
            "fetched_config_name": fetched.name,
            "boolean_categories": categories(boolean),
            "archived": archived.is_archived,
            "configs_total": configs.meta.total_items,
            "comments": [comment.content for comment in comments.data],
            "comments_meta": {
                "page": comments.meta.page,
                "limit": comments.meta.limit,
                "total_items": comments.meta.total_items,
                "total_pages": comments.meta.total_pages,
            },
            "fetched_comment": {
                "object_type": fetched_comment.object_type.value,
                "author_user_id": fetched_comment.author_user_id,
                "content": fetched_comment.content,
            },
            "missing_comment_status": missing_status,
        }
    )
)
