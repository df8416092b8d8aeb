"""Datasets with the real Langfuse Python SDK: create a dataset and items (one archived, one updated),
read it now and at an earlier version, run an experiment over it, link each traced item to a dataset
run and read the run back. Prints what it saw as JSON.

SDK 5 has no client for dataset runs any more (v4 records experiments from the OTLP spans), so the
run endpoints are called through the SDK's own HTTP client and parsed with the models earlier SDK
generations used for them (reference/public-api.md §4.9), required keys and all.

Usage: python datasets.py  (reads LOUPE_URL, LOUPE_PUBLIC_KEY, LOUPE_SECRET_KEY)
"""
import datetime as dt
import json
import os
import typing
from urllib.parse import quote

import pydantic
import typing_extensions
from langfuse import Evaluation, Langfuse
from langfuse.api import DatasetStatus
from langfuse.api.core.pydantic_utilities import UniversalBaseModel, parse_obj_as
from langfuse.api.core.serialization import FieldMetadata
from langfuse.api.utils.pagination.types.meta_response import MetaResponse


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


result = now.run_experiment(name="capitals", run_name="sdk-run", task=task, evaluators=[exact])
langfuse.flush()

# Link each traced item to a dataset run, as the SDKs did after every item before v4.
http = langfuse.api._client_wrapper.httpx_client


def call(path, model, method="GET", **kwargs):
    response = http.request(path, method=method, **kwargs)
    if response.status_code != 200:
        raise RuntimeError(f"{method} {path}: {response.status_code} {response.text}")
    return parse_obj_as(model, response.json())


linked = [
    call(
        "api/public/dataset-run-items",
        DatasetRunItem,
        method="POST",
        json={
            "runName": result.run_name,
            "runDescription": "from the SDK",
            "metadata": {"experiment_id": result.experiment_id},
            "datasetItemId": item_result.item.id,
            "traceId": item_result.trace_id,
        },
    )
    for item_result in result.item_results
]
run_path = f"api/public/datasets/{quote(NAME, safe='')}/runs"
run = call(f"{run_path}/{quote(result.run_name, safe='')}", DatasetRunWithItems)
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
            "linked_run_ids": sorted({item.dataset_run_id for item in linked}),
            "run": {
                "id": run.id,
                "name": run.name,
                "description": run.description,
                "metadata": run.metadata,
                "dataset_name": run.dataset_name,
                "trace_ids": sorted(item.trace_id for item in run.dataset_run_items),
                "item_ids": sorted(item.dataset_item_id for item in run.dataset_run_items),
            },
            "runs": [r.name for r in runs.data],
            "listed_run_items": run_items.meta.total_items,
        }
    )
)
