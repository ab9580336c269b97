//! Contract tests of the emulator over real HTTP on 127.0.0.1:0: one per endpoint and per rule
//! of issue 3 (accepted and rejected forms).

mod admin;
mod auth;
mod cli;
mod constraints;
mod dns;
mod dns_wire;
mod domains;
mod errors;
mod faults;
mod gaps;
mod idempotency;
mod openapi;
mod pagination;
mod ratelimit;
mod sites;

use crate::common::emulator::Api;
use dnscron_emulator::EmulatorHandle;

pub fn demo(emu: &EmulatorHandle) -> Api {
    Api::new(&emu.base_url(), "demo-token")
}

pub fn readonly(emu: &EmulatorHandle) -> Api {
    Api::new(&emu.base_url(), "readonly-token")
}
