"""Datasets with the real Langfuse Python SDK: create a dataset and items (one archived, one updated),
read it now and at an earlier version, run an experiment over it and read it back both as the dataset run
the server records from the experiment's spans and through the v4 experiments API, then link the
traces to a second run by hand. Prints what it saw as JSON.

SDK 5 has no client for dataset runs any more (v4 records experiments from the OTLP spans), so the
run endpoints are called through the SDK's own HTTP client and parsed with the models earlier SDK
generations used for them (reference/public-api.md §4.9), required keys and all.

Usage: python datasets.py  (reads LOUPE_URL, LOUPE_PUBLIC_KEY, LOUPE_SECRET_KEY)
"""
import datetime as dt
import hashlib
import json
import os
import time
import typing
from urllib.parse import quote

import pydantic
import typing_extensions
from langfuse import Evaluation, Langfuse
from langfuse.api import DatasetStatus
from langfuse.api.core.pydantic_utilities import UniversalBaseModel, parse_obj_as
from langfuse.api.core.serialization import FieldMetadata
from langfuse.api.utils.pagination.types.meta_response import MetaResponse

from polling import until


class DatasetRunItem(UniversalBaseModel):
    id: str
    dataset_run_id: typing_extensions.Annotated[str, FieldMetadata(alias="datasetRunId")]
    dataset_run_name: typing_extensions.Annotated[str, FieldMetadata(alias="datasetRunName")]
    dataset_item_id: typing_extensions.Annotated[str, FieldMetadata(alias="datasetItemId")]
    trace_id: typing_extensions.Annotated[str, FieldMetadata(alias="traceId")]
    observation_id: typing_extensions.Annotated[typing.Optional[str], FieldMetadata(alias="observationId")] = None
    created_at: typing_extensions.Annotated[dt.datetime, FieldMetadata(alias="createdAt")]
    updated_at: typing_extensions.Annotated[dt.datetime, FieldMetadata(alias="updatedAt")]
    model_config: typing.ClassVar[pydantic.ConfigDict] = pydantic.ConfigDict(extra="allow", frozen=True)


class DatasetRun(UniversalBaseModel):
    id: str
    name: str
    description: typing.Optional[str] = None
    metadata: typing.Any = pydantic.Field()
    dataset_id: typing_extensions.Annotated[str, FieldMetadata(alias="datasetId")]
    dataset_name: typing_extensions.Annotated[str, FieldMetadata(alias="datasetName")]
    created_at: typing_extensions.Annotated[dt.datetime, FieldMetadata(alias="createdAt")]
    updated_at: typing_extensions.Annotated[dt.datetime, FieldMetadata(alias="updatedAt")]
    model_config: typing.ClassVar[pydantic.ConfigDict] = pydantic.ConfigDict(extra="allow", frozen=True)


class DatasetRunWithItems(DatasetRun):
    dataset_run_items: typing_extensions.Annotated[
        typing.List[DatasetRunItem], FieldMetadata(alias="datasetRunItems")
    ]


class PaginatedDatasetRuns(UniversalBaseModel):
    data: typing.List[DatasetRun]
    meta: MetaResponse


class PaginatedDatasetRunItems(UniversalBaseModel):
    data: typing.List[DatasetRunItem]
    meta: MetaResponse


langfuse = Langfuse(
    public_key=os.environ["LOUPE_PUBLIC_KEY"],
    secret_key=os.environ["LOUPE_SECRET_KEY"],
    base_url=os.environ["LOUPE_URL"],
)
NAME = "sdk/capitals"
dataset = langfuse.create_dataset(name=NAME, description="capital cities", metadata={"owner": "sdk"})
first = langfuse.create_dataset_item(
    dataset_name=NAME, id="italy", input={"country": "Italy"}, expected_output="Rome"
)
langfuse.create_dataset_item(
    dataset_name=NAME,
    id="france",
    input={"country": "France"},
    expected_output="Paris",
    metadata={"continent": "Europe"},
)
langfuse.create_dataset_item(
    dataset_name=NAME,
    id="japan",
    input={"country": "Japan"},
    expected_output="Tokyo",
    status=DatasetStatus.ARCHIVED,
)
updated = langfuse.create_dataset_item(dataset_name=NAME, id="italy", input={"country": "Italia"})

then = langfuse.get_dataset(NAME, version=first.updated_at)
now = langfuse.get_dataset(NAME)
capitals = {"Italia": "Rome", "France": "Paris"}


def task(*, item, **kwargs):
    return capitals[item.input["country"]]


def exact(*, output, expected_output=None, **kwargs):
    return Evaluation(name="exact", value=1.0 if output == expected_output else 0.0)


started = dt.datetime.now(dt.timezone.utc) - dt.timedelta(minutes=5)
result = now.run_experiment(
    name="capitals",
    run_name="sdk-run",
    description="capitals by lookup",
    metadata={"model": "lookup"},
    task=task,
    evaluators=[exact],
)
langfuse.flush()

http = langfuse.api._client_wrapper.httpx_client


def call(path, model, method="GET", missing_ok=False, **kwargs):
    response = http.request(path, method=method, **kwargs)
    if missing_ok and response.status_code == 404:
        return None
    if response.status_code != 200:
        raise RuntimeError(f"{method} {path}: {response.status_code} {response.text}")
    return parse_obj_as(model, response.json())


# SDK 5 records the experiment only in its spans; the server turns the spans of each dataset item
# into the run and run items older SDKs created themselves.
run_path = f"api/public/datasets/{quote(NAME, safe='')}/runs"
run = until(
    "the experiment's dataset run",
    lambda: call(f"{run_path}/{quote(result.run_name, safe='')}", DatasetRunWithItems, missing_ok=True),
    lambda run: run is not None and len(run.dataset_run_items) == 2,
)
experiments = until(
    "the experiment in the v4 experiments API",
    lambda: langfuse.api.experiments.list(
        from_start_time=started, id=result.experiment_id, fields="core,metadata,scores"
    ),
    lambda page: len(page.data) == 1 and page.data[0].item_count == 2,
)
experiment_items = langfuse.api.experiments.list_items(
    from_start_time=started, experiment_id=result.experiment_id, fields="core,dataset,io"
)

# Linking by hand, as the SDKs did after every item before v4, names a run by the same stable id.
linked = [
    call(
        "api/public/dataset-run-items",
        DatasetRunItem,
        method="POST",
        json={
            "runName": "by-hand",
            "runDescription": "from the SDK",
            "metadata": {"experiment_id": result.experiment_id},
            "datasetItemId": item_result.item.id,
            "traceId": item_result.trace_id,
        },
    )
    for item_result in result.item_results
]
project_id = langfuse.api.projects.get().data[0].id
derived = json.dumps(["langfuse-experiment-v1", project_id, now.id, "by-hand"], separators=(",", ":"))
by_hand = call(f"{run_path}/by-hand", DatasetRunWithItems)
runs = call(run_path, PaginatedDatasetRuns)
run_items = call(
    "api/public/dataset-run-items",
    PaginatedDatasetRunItems,
    params={"datasetId": now.id, "runName": result.run_name},
)

print(
    json.dumps(
        {
            "dataset_id": dataset.id,
            "description": now.description,
            "then": sorted(item.input["country"] for item in then.items),
            "now": sorted(item.input["country"] for item in now.items),
            "updated_expected_output": updated.expected_output,
            "item_versions_differ": updated.version != first.version,
            "outputs": sorted(str(r.output) for r in result.item_results),
            "scores": sorted(e.value for r in result.item_results for e in r.evaluations),
            "trace_ids": sorted(r.trace_id for r in result.item_results),
            "experiment_id": result.experiment_id,
            "run": {
                "id": run.id,
                "name": run.name,
                "description": run.description,
                "metadata": run.metadata,
                "dataset_name": run.dataset_name,
                "trace_ids": sorted(item.trace_id for item in run.dataset_run_items),
                "item_ids": sorted(item.dataset_item_id for item in run.dataset_run_items),
                "observation_ids": sorted(item.observation_id or "" for item in run.dataset_run_items),
            },
            "experiment": {
                "id": experiments.data[0].id,
                "name": experiments.data[0].name,
                "description": experiments.data[0].description,
                "dataset_id": experiments.data[0].dataset_id,
                "item_count": experiments.data[0].item_count,
                "metadata": experiments.data[0].metadata,
            },
            "experiment_items": sorted(
                [item.experiment_item_id, item.trace_id, item.id, item.experiment_dataset_id]
                for item in experiment_items.data
            ),
            "linked_run_ids": sorted({item.dataset_run_id for item in linked}),
            "by_hand": {
                "id": by_hand.id,
                "derived_id": hashlib.sha256(derived.encode()).hexdigest()[:16],
                "description": by_hand.description,
                "trace_ids": sorted(item.trace_id for item in by_hand.dataset_run_items),
            },
            "runs": [r.name for r in runs.data],
            "listed_run_items": run_items.meta.total_items,
        }
    )
)
