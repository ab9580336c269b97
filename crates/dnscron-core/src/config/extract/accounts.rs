//! An `accounts:` document: the hosting accounts of a repository and their folders.

use super::{Ctx, MapReader};
use crate::config::raw::{self, keys};
use crate::config::tree::Node;

pub(crate) fn accounts_doc(ctx: &mut Ctx<'_>, node: &Node) -> Option<raw::AccountsDoc> {
    let what = "an accounts list";
    let m = MapReader::new(ctx, node, what, keys::ACCOUNTS)?;
    let accounts = m.req(ctx, what, "accounts", |c, n| {
        c.list(n, "`accounts`", account)
    })?;
    Some(raw::AccountsDoc {
        accounts,
        pos: node.pos,
    })
}

fn account(ctx: &mut Ctx<'_>, node: &Node) -> Option<raw::AccountEntry> {
    let what = "an account";
    let m = MapReader::new(ctx, node, what, keys::ACCOUNT)?;
    let name = m.req(ctx, what, "name", |c, n| c.str(n, "`name`"));
    let folder = m.req(ctx, what, "folder", |c, n| c.str(n, "`folder`"));
    let api_url = m.req(ctx, what, "api_url", |c, n| c.str(n, "`api_url`"));
    let token_env = m.opt(ctx, "token_env", |c, n| c.str(n, "`token_env`"));
    let token_file = m.opt(ctx, "token_file", |c, n| c.str(n, "`token_file`"));
    Some(raw::AccountEntry {
        name: name?,
        folder: folder?,
        api_url: api_url?,
        token_env,
        token_file,
        pos: node.pos,
    })
}
