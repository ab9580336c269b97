//! dnscron against servers that misbehave the way real ones, proxies and load balancers do
//! (issue 11): every byte from the network is untrusted input. One file per area.

mod paging;
mod safety;
