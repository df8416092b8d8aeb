// Custom dashboards at /project/{projectId}/dashboards: the list, and a dashboard's page under it.

import { Route, Routes } from "react-router";

import "../../components/charts/charts.css";
import { DashboardList } from "./DashboardList";
import { DashboardView } from "./DashboardView";
import "./dashboards.css";

export default function DashboardsPage() {
  return (
    <Routes>
      <Route index element={<DashboardList />} />
      <Route path=":dashboardId" element={<DashboardView />} />
    </Routes>
  );
}
