// "Add to queue" in the trace panel: a menu of the project's annotation queues; choosing one adds
// the selected observation (or, when the trace's root is not an observation of its own, the
// trace). Kept here so the trace feature only places it.

import { useEffect, useMemo, useState } from "react";
import { Link } from "react-router";

import { describeError, isApiError } from "../../api/client";
import { Menu, MenuItem } from "../../components/Menu";
import { annotationApi, type AnnotationApi, type Queue } from "./api";

interface AddToQueueProps {
  projectId: string;
  traceId: string;
  observationId: string | undefined;
}

function Choices({ api, projectId, onChoose }: { api: AnnotationApi; projectId: string; onChoose(queue: Queue): void }) {
  const [queues, setQueues] = useState<Queue[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    const controller = new AbortController();
    api.list(1, controller.signal).then((page) => setQueues(page.data), (caught: unknown) => !controller.signal.aborted && setError(caught));
    return () => controller.abort();
  }, [api]);
  if (error !== null) return <p className="menu__muted">{describeError(error)}</p>;
  if (queues === null) return <p className="menu__muted">Loading the queues…</p>;
  if (queues.length === 0) {
    return (
      <Link role="menuitem" className="menu__item" to={`/project/${encodeURIComponent(projectId)}/annotation-queues`}>
        Create a queue first
      </Link>
    );
  }
  return (
    <>
      {queues.map((queue) => (
        <MenuItem key={queue.id} onSelect={() => onChoose(queue)}>
          {queue.name}
        </MenuItem>
      ))}
    </>
  );
}

export function AddToQueue({ projectId, traceId, observationId }: AddToQueueProps) {
  const api = useMemo(() => annotationApi(projectId), [projectId]);
  const [status, setStatus] = useState<string | null>(null);
  useEffect(() => setStatus(null), [observationId]);
  const add = async (queue: Queue) => {
    setStatus("Adding…");
    try {
      try {
        await api.addItem(queue.id, "OBSERVATION", observationId ?? traceId);
      } catch (caught) {
        // The v3 trace node stands for its trace; it is no observation of its own.
        if (!isApiError(caught, "not-found") || observationId === undefined) throw caught;
        await api.addItem(queue.id, "TRACE", traceId);
      }
      setStatus(`Added to ${queue.name}`);
    } catch (caught) {
      setStatus(describeError(caught));
    }
  };
  return (
    <span className="add-to-queue">
      {status && (
        <span className="muted add-to-queue__status" role="status">
          {status}
        </span>
      )}
      <Menu label="Add to queue" align="end">
        <Choices api={api} projectId={projectId} onChoose={(queue) => void add(queue)} />
      </Menu>
    </span>
  );
}
