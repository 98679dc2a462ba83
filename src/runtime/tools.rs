//! The tools the agent can call.
