"""Annotation queues with the real Langfuse Python SDK (`langfuse.api.annotation_queues`, whose
pydantic models parse every answer): create a queue with a score config, list and get it; add a
trace, an observation and a session as items, list them by status, complete one, get one, delete
one; assign a user and remove the assignment; ask for a missing queue. Prints what it saw as JSON.

Usage: python annotation_queues.py  (reads LOUPE_URL, LOUPE_PUBLIC_KEY, LOUPE_SECRET_KEY,
LOUPE_USER_ID: a person with access to the project)
"""
import json
import os

from langfuse import Langfuse
from langfuse.api import (
    AnnotationQueueObjectType,
    AnnotationQueueStatus,
    NotFoundError,
    ScoreConfigDataType,
)

langfuse = Langfuse(
    public_key=os.environ["LOUPE_PUBLIC_KEY"],
    secret_key=os.environ["LOUPE_SECRET_KEY"],
    base_url=os.environ["LOUPE_URL"],
)
api = langfuse.api
queues = api.annotation_queues

config = api.score_configs.create(name="correct", data_type=ScoreConfigDataType.BOOLEAN)
queue = queues.create_queue(name="triage", description="First look", score_config_ids=[config.id])
fetched = queues.get_queue(queue.id)
assert fetched == queue, (fetched, queue)
listed = queues.list_queues(page=1, limit=10)

trace = queues.create_queue_item(queue.id, object_id="t-1", object_type=AnnotationQueueObjectType.TRACE)
observation = queues.create_queue_item(
    queue.id, object_id="o-1", object_type=AnnotationQueueObjectType.OBSERVATION
)
session = queues.create_queue_item(
    queue.id,
    object_id="s-1",
    object_type=AnnotationQueueObjectType.SESSION,
    status=AnnotationQueueStatus.COMPLETED,
)
again = queues.create_queue_item(queue.id, object_id="t-1", object_type=AnnotationQueueObjectType.TRACE)
completed = queues.update_queue_item(queue.id, observation.id, status=AnnotationQueueStatus.COMPLETED)
pending = queues.list_queue_items(queue.id, status=AnnotationQueueStatus.PENDING)
done = queues.list_queue_items(queue.id, status=AnnotationQueueStatus.COMPLETED, page=1, limit=1)
one = queues.get_queue_item(queue.id, trace.id)
deleted = queues.delete_queue_item(queue.id, session.id)
after_delete = queues.list_queue_items(queue.id)

assigned = queues.create_queue_assignment(queue.id, user_id=os.environ["LOUPE_USER_ID"])
unassigned = queues.delete_queue_assignment(queue.id, user_id=os.environ["LOUPE_USER_ID"])

try:
    queues.get_queue("no-such-queue")
    missing_status = 200
except NotFoundError as error:
    missing_status = error.status_code

print(
    json.dumps(
        {
            "queue": {
                "name": queue.name,
                "description": queue.description,
                "score_config_ids": queue.score_config_ids,
                "config_id": config.id,
            },
            "listed": [q.name for q in listed.data],
            "listed_total": listed.meta.total_items,
            "items": [
                [i.object_type.value, i.object_id, i.status.value, i.queue_id == queue.id]
                for i in (trace, observation, session)
            ],
            "session_completed_at": session.completed_at is not None,
            "same_item_again": again.id == trace.id,
            "completed": [completed.status.value, completed.completed_at is not None],
            "pending": [i.object_id for i in pending.data],
            "done": {"ids": [i.object_id for i in done.data], "total": done.meta.total_items, "pages": done.meta.total_pages},
            "one": [one.id == trace.id, one.status.value],
            "deleted": [deleted.success, deleted.message],
            "after_delete": [i.object_id for i in after_delete.data],
            "assigned": [assigned.user_id == os.environ["LOUPE_USER_ID"], assigned.queue_id == queue.id, assigned.project_id],
            "unassigned": unassigned.success,
            "missing_queue_status": missing_status,
        }
    )
)
