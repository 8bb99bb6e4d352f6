// Package bench compares mcpgen with go-sdk and mcp-go on the same work.
//
// The benchmarks (in its tests; scripts/bench runs them and prints the
// table) are:
//
//   - DecodeToolsCall, EncodeResult, DecodeResult: the codecs, on the same
//     message bytes.
//   - RoundTrip/<mem|stdio|http>/<seq|par8>: an echo tool call at
//     2025-06-18, each library's own client and server, after initialize.
//   - Modern/<http|stdio>/<seq|par8>: the same call at 2026-07-28,
//     stateless, with no initialize, every server driven by one raw client
//     that sends the same bytes and headers.
//   - ModernMRTR/http: one multi round-trip request at 2026-07-28 (the call,
//     its InputRequiredResult, the retry with the answer and requestState).
//   - Tracing/<legacy/mem|legacy/stdio|legacy/http|stateless/http>/seq/<off|on|never>:
//     mcpgen's echo call with otelmcp on both sides (on: every span
//     recorded; never: none sampled) or not (off), the cost of tracing.
//   - Generate: generating every pinned revision.
//
// The floor rows do the same exchange with no MCP library at all.
package bench
