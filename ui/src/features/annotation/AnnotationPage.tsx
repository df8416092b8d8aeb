// Annotation queues at /project/{projectId}/annotation-queues: the list (with progress, creating a
// queue, adding items), and a queue's work view at …/{queueId}/work.

import { Route, Routes } from "react-router";

import { QueueList } from "./QueueList";
import { WorkView } from "./WorkView";
import "./annotation.css";

export default function AnnotationPage() {
  return (
    <Routes>
      <Route index element={<QueueList />} />
      <Route path=":queueId/work" element={<WorkView />} />
    </Routes>
  );
}
