//! The OpenAPI document of the public API, generated from the handlers' `#[utoipa::path]`
//! annotations and the typed bodies they name. Routes are mounted through `utoipa_axum::routes!`,
//! which documents each route as it mounts it, so the document lists exactly what the router
//! serves (a test walks it against the router).

use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

/// The path the document is served at.
pub const PATH: &str = "/api/public/openapi.json";

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Loupe public API",
        description = "The Langfuse public API as Loupe serves it: every Langfuse SDK and OpenTelemetry exporter works against it unchanged."
    ),
    modifiers(&SecuritySchemes)
)]
pub struct ApiDoc;

/// `basicAuth`: a project's public key as user name and its secret key as password (or, where a
/// route says so, the public key alone); on the organization routes, an organization key's pair.
/// `adminBearer`: `Authorization: Bearer <ADMIN_API_KEY>`. `sessionCookie`: the UI's sign-in session
/// (`/api/ui/...`; state changes also need `X-CSRF-Token`).
struct SecuritySchemes;

impl Modify for SecuritySchemes {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "basicAuth",
            SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Basic).build()),
        );
        components.add_security_scheme(
            "adminBearer",
            SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build()),
        );
        components.add_security_scheme(
            "sessionCookie",
            SecurityScheme::ApiKey(ApiKey::Cookie(ApiKeyValue::new(crate::session::COOKIE_NAME))),
        );
    }
}

pub use crate::error::ErrorBody;
