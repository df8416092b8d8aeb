// What a batch export of the Observations view asks for: the view's own filters, search and time
// range (as of `now`), so the file holds the rows the view lists. Searching input and output is a
// view-only search the export cannot repeat; the dialog says so and the export is not offered then.

import { rangeParams, toApiFilters } from "../observations/filters";
import type { ViewState } from "../observations/state";
import type { BatchExportRequest, FileType } from "./api";

export function batchRequest(state: ViewState, fileType: FileType, name: string, now: number): BatchExportRequest {
  const filters = toApiFilters(state.filters);
  const range = rangeParams(state.range, now);
  const search = state.searchIn === "ids" ? state.search.trim() : "";
  return {
    ...(name.trim() ? { name: name.trim() } : {}),
    fileType,
    ...(filters.length ? { filter: filters } : {}),
    ...(search ? { search } : {}),
    ...range,
  };
}

/** Why the view cannot be exported as shown, if it cannot. */
export function cannotExport(state: ViewState): string | null {
  return state.searchIn === "io" && state.search.trim()
    ? "Exports cannot repeat a search in input and output: clear it, or search names and ids."
    : null;
}
