//! A spec-faithful local server of the Hosting Customer API, with fault injection.
