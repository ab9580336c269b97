//! Bearer tokens, scopes and pinned sites (spec: Authentication).

use std::collections::HashSet;

use axum::http::{HeaderMap, header};

use super::error::{ApiError, ApiResult};
use dnscron_provider::{Endpoint, Scope};

use super::seed::TokenSeed;
use super::shared::Shared;

/// The caller, resolved from the bearer token; handlers read it from the request extensions.
#[derive(Clone, Debug)]
pub(crate) struct Principal {
    pub token: String,
    pub user: String,
    scopes: HashSet<Scope>,
    /// `None`: every site.
    sites: Option<Vec<String>>,
}

impl Principal {
    fn from_seed(seed: &TokenSeed) -> Principal {
        let mut scopes: HashSet<Scope> = seed.scopes.iter().copied().collect();
        scopes.insert(Scope::Read);
        Principal {
            token: seed.token.clone(),
            user: seed.user.clone(),
            scopes,
            sites: seed.sites.clone(),
        }
    }

    /// The scope `endpoint` needs (spec, Endpoints), or 403.
    pub(crate) fn require(&self, endpoint: Endpoint) -> ApiResult<()> {
        match endpoint.scope() {
            Some(scope) if !self.scopes.contains(&scope) => Err(ApiError::forbidden(format!(
                "this token lacks the `{}` scope; create a token with it in the portal under API tokens",
                scope.as_str()
            ))),
            Some(_) | None => Ok(()),
        }
    }

    pub(crate) fn may_see_site(&self, slug: &str) -> bool {
        self.sites
            .as_ref()
            .is_none_or(|sites| sites.iter().any(|s| s == slug))
    }

    pub(crate) fn require_site(&self, slug: &str) -> ApiResult<()> {
        if self.may_see_site(slug) {
            Ok(())
        } else {
            Err(ApiError::forbidden(format!(
                "the site `{slug}` is not pinned to this token"
            )))
        }
    }
}

pub(crate) fn authenticate(shared: &Shared, headers: &HeaderMap) -> ApiResult<Principal> {
    let value = headers.get(header::AUTHORIZATION).ok_or_else(|| {
        ApiError::unauthenticated("missing token: send Authorization: Bearer <API_TOKEN>")
    })?;
    let token = value
        .to_str()
        .ok()
        .and_then(|v| {
            let (scheme, rest) = v.trim().split_once(' ')?;
            scheme.eq_ignore_ascii_case("bearer").then(|| rest.trim())
        })
        .ok_or_else(|| {
            ApiError::unauthenticated("malformed Authorization header: use `Bearer <API_TOKEN>`")
        })?;
    if crate::shared::lock(&shared.faults).revoked.contains(token) {
        return Err(ApiError::unauthenticated("invalid token"));
    }
    shared
        .tokens
        .get(token)
        .map(Principal::from_seed)
        .ok_or_else(|| ApiError::unauthenticated("invalid token"))
}
