-- Media attachments (issue 7). A media id is derived from the content's SHA-256 (the SDKs compute
-- and check it), so identical content in a project is one row and is uploaded once.
CREATE TABLE media (
    project_id          TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    id                  TEXT NOT NULL,
    -- base64 SHA-256 of the content, as the SDK announced it
    sha256_hash         TEXT NOT NULL,
    content_type        TEXT NOT NULL,
    content_length      BIGINT NOT NULL CHECK (content_length > 0),
    -- key in the blob store (below its prefix)
    blob_key            TEXT NOT NULL,
    -- the upload outcome: reported by the SDK (PATCH) or recorded by web's own upload endpoint
    uploaded_at         TIMESTAMPTZ,
    upload_http_status  INTEGER,
    upload_http_error   TEXT,
    upload_time_ms      BIGINT,
    created_at          TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at          TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (project_id, id)
);

-- Where each media object is referenced: a trace or observation field, or a dataset item field.
CREATE TABLE media_links (
    project_id       TEXT NOT NULL,
    media_id         TEXT NOT NULL,
    trace_id         TEXT NOT NULL DEFAULT '',
    observation_id   TEXT NOT NULL DEFAULT '',
    dataset_id       TEXT NOT NULL DEFAULT '',
    dataset_item_id  TEXT NOT NULL DEFAULT '',
    field            TEXT NOT NULL,
    created_at       TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (project_id, media_id, trace_id, observation_id, dataset_item_id, field),
    FOREIGN KEY (project_id, media_id) REFERENCES media (project_id, id) ON DELETE CASCADE
);
CREATE INDEX media_links_dataset_item_idx ON media_links (project_id, dataset_item_id) WHERE dataset_item_id <> '';
