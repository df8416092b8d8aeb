// Datasets at /project/{projectId}/datasets: the list, and a dataset's page under it.

import { Route, Routes } from "react-router";

import { DatasetList } from "./DatasetList";
import { DatasetView } from "./DatasetView";
import "./datasets.css";

export default function DatasetsPage() {
  return (
    <Routes>
      <Route index element={<DatasetList />} />
      <Route path=":datasetName" element={<DatasetView />} />
    </Routes>
  );
}
