//! The planner: diff rules, ordering, safety, the plan model and its three renderings; the plan
//! file and its schema.

mod accept;
mod account;
mod file;
mod file_schema;
mod fixtures;
mod health;
mod held;
mod mail;
mod matching;
mod model;
mod normalize;
mod ordering;
mod progress;
mod render;
mod safety;
mod schema_check;
