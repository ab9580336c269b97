//! Client of the Hosting Customer API: wire types, pacing, retries, pagination.

pub mod wire;
