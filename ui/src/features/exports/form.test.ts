import { describe, expect, it } from "vitest";

import { DEFAULT_STATE } from "../observations/state";
import { batchRequest, cannotExport } from "./batch";
import { emptyIntegration, integrationRequest } from "./form";

describe("export settings form", () => {
  it("sends an S3-compatible target with its keys, a prefix and a custom start", () => {
    const checked = integrationRequest(
      "p1",
      {
        ...emptyIntegration("OBSERVATIONS_V2"),
        type: "S3_COMPATIBLE",
        bucketName: " loupe ",
        endpoint: "http://127.0.0.1:9000",
        accessKeyId: "key",
        secretAccessKey: "secret",
        prefix: "exports/",
        forcePathStyle: true,
        exportMode: "FROM_CUSTOM_DATE",
        exportStartDate: "2026-01-02",
      },
      false,
    );
    expect(checked.ok && checked.value).toMatchObject({
      projectId: "p1",
      type: "S3_COMPATIBLE",
      bucketName: "loupe",
      endpoint: "http://127.0.0.1:9000",
      secretAccessKey: "secret",
      prefix: "exports/",
      exportStartDate: "2026-01-02T00:00:00Z",
      exportSource: "OBSERVATIONS_V2",
    });
  });

  it("names what the server would refuse, and keeps a stored secret", () => {
    const form = { ...emptyIntegration("OBSERVATIONS_V2"), type: "AZURE_BLOB_STORAGE" as const, region: "-eu", prefix: "a//", exportMode: "FROM_CUSTOM_DATE" as const, exportFieldGroups: [] };
    const checked = integrationRequest("p1", form, false);
    expect(checked.ok ? [] : Object.keys(checked.problems).sort()).toEqual(
      ["accessKeyId", "bucketName", "exportFieldGroups", "exportStartDate", "prefix", "region", "secretAccessKey"].sort(),
    );
    const stored = integrationRequest("p1", { ...emptyIntegration("OBSERVATIONS_V2"), type: "AZURE_BLOB_STORAGE", bucketName: "c", accessKeyId: "acct" }, true);
    expect(stored.ok && "secretAccessKey" in stored.value).toBe(false);
  });
});

describe("batch export of the view", () => {
  it("carries the view's filters, search and range", () => {
    const state = {
      ...DEFAULT_STATE,
      filters: [{ column: "level", operator: "any of", value: ["ERROR"] }],
      search: " checkout ",
      range: { from: "2026-01-01T00:00:00.000Z", to: "2026-01-02T00:00:00.000Z" },
    };
    const request = batchRequest(state, "CSV", "", Date.parse("2026-01-03T00:00:00Z"));
    expect(request).toMatchObject({ fileType: "CSV", search: "checkout", fromStartTime: "2026-01-01T00:00:00.000Z", toStartTime: "2026-01-02T00:00:00.000Z" });
    expect(request.filter).toHaveLength(1);
    expect(request).not.toHaveProperty("name");
  });

  it("is not offered for a search in input and output", () => {
    expect(cannotExport({ ...DEFAULT_STATE, search: "x", searchIn: "io" })).toMatch(/input and output/);
    expect(cannotExport({ ...DEFAULT_STATE, search: "x" })).toBeNull();
  });
});
