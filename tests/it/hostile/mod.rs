//! dnscron against servers that misbehave the way real ones do (issue 11): every byte from
//! the network is untrusted input.

mod paging;
