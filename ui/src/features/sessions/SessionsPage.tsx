// Sessions at /project/{projectId}/sessions: the list, and a session's page under it.

import { Route, Routes } from "react-router";

import { SessionList } from "./SessionList";
import { SessionPage } from "./SessionPage";
import "./sessions.css";

export default function SessionsPage() {
  return (
    <Routes>
      <Route index element={<SessionList />} />
      <Route path=":sessionId" element={<SessionPage />} />
    </Routes>
  );
}
