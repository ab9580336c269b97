//! dnscron's client against servers that misbehave the way real ones, proxies and load
//! balancers do: every byte from the network is untrusted input. One file per area.

mod safety;
