// conformance-judge.mjs judges one run of the official conformance suite
// 0.2 ("conformance server|client --requirements REV -o DIR") against a
// baseline of expected failures, for scripts/conformance.
//
//   node conformance-judge.mjs --requirements FILE --side server|client \
//     --results DIR --baseline FILE [--exits DIR] [--client-may-fail A,B] \
//     [--yaml-from FILE]
//
// --requirements is the suite's requirements/<rev>.yaml: the scenarios of
// the side, scored and not scored, are the ones judged. --results is the
// run's -o directory (a checks.json per scenario, in a directory named
// "[server-]<scenario>-<timestamp>"). --baseline has the suite's format:
// "server:" and "client:" lists of "<scenario>" (the whole scenario may
// fail) or "<scenario>:<check-id>" (that check may fail). --exits holds one
// file per client scenario ("/" spelled "_") with the client's exit status.
// The YAML files are read with the suite's own yaml package, found from the
// requirements file (in the suite's package) or from --yaml-from.
//
// The suite's own --requirements verdict judges the scored scenarios by
// their checks only. This judge applies the suite's baseline rules
// (a FAILURE or WARNING check is a failure; a listed failure is expected; a
// listed scenario or check that passes is stale) to every scenario of the
// side, scored or not, with three more failures, which a baseline can list
// by their ids like any check:
//   - no-result: the scenario left no checks.json (it threw, which the
//     suite's log shows, or the run crashed or hit its time limit);
//   - no-successful-check: no check succeeded (the suite's tier-check does
//     not count such a scenario as passed either);
//   - client-exit: the client exited non-zero, or left no exit status,
//     in a scenario not named by --client-may-fail (the suite's
//     single-scenario verdict fails those too).
//
// It prints one line per scenario, the failing checks of unexpected
// failures, and last a line
//   judge: P passed, F failed, W warnings; scenarios: N judged, R with results, A passed, E expected failures, U unexpected, S stale; counted: CP passed, CF failed
// where P/F/W count the checks of every scenario, and "counted" are the
// checks of the scenarios not listed wholesale in the baseline (their
// passed checks) and the unexpected failures and stale entries. It exits 1
// if any result is unexpected or stale, 2 on a usage or input error.
import { createRequire } from "node:module";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";

const usage =
	"usage: node conformance-judge.mjs --requirements FILE --side server|client --results DIR --baseline FILE [--exits DIR] [--client-may-fail A,B] [--yaml-from FILE]";

function fail(msg) {
	console.error(`conformance-judge: ${msg}`);
	process.exit(2);
}

function parseArgs(argv) {
	const known = new Set(["requirements", "side", "results", "baseline", "exits", "client-may-fail", "yaml-from"]);
	const opts = {};
	for (let i = 0; i < argv.length; i += 2) {
		const name = argv[i].replace(/^--/, "");
		if (!argv[i].startsWith("--") || !known.has(name) || i + 1 >= argv.length) fail(`bad argument ${JSON.stringify(argv[i])}\n${usage}`);
		opts[name] = argv[i + 1];
	}
	for (const name of ["requirements", "side", "results", "baseline"]) {
		if (!opts[name]) fail(`--${name} is required\n${usage}`);
	}
	if (opts.side !== "server" && opts.side !== "client") fail(`--side must be server or client, not ${JSON.stringify(opts.side)}`);
	return opts;
}

// loadYAML parses YAML with the yaml package the suite depends on, found
// from the requirements file (inside the suite's package) or --yaml-from.
function loadYAML(file, from) {
	const require = createRequire(resolve(from));
	let YAML;
	try {
		YAML = require("yaml");
	} catch (e) {
		fail(`cannot load the yaml package from ${from}: ${e.message}`);
	}
	try {
		return YAML.parse(readFileSync(file, "utf8"));
	} catch (e) {
		fail(`${file}: ${e.message}`);
	}
}

// scenariosOf returns the scenarios of side in a requirement set: name ->
// "scored" or the not_scored reason.
function scenariosOf(req, side, file) {
	const out = new Map();
	const scored = req?.[side] ?? [];
	if (!Array.isArray(scored)) fail(`${file}: "${side}" is not a list`);
	for (const s of scored) out.set(String(s), "scored");
	for (const e of req?.not_scored ?? []) {
		if (e?.leg === side && typeof e.scenario === "string") out.set(e.scenario, `not scored: ${e.reason ?? "no reason"}`);
	}
	if (out.size === 0) fail(`${file}: no ${side} scenarios`);
	return out;
}

// parseBaseline returns the entries of one side, as the suite reads them.
function parseBaseline(doc, side, file) {
	if (doc == null) return { whole: new Set(), checks: new Map() };
	if (typeof doc !== "object" || Array.isArray(doc)) fail(`${file}: expected an object with server and/or client keys`);
	const list = doc[side] ?? [];
	if (!Array.isArray(list)) fail(`${file}: "${side}" must be a list`);
	const whole = new Set();
	const checks = new Map();
	for (const e of list) {
		if (typeof e !== "string" || e === "") fail(`${file}: ${side} entry ${JSON.stringify(e)} is not "<scenario>" or "<scenario>:<check-id>" (no space after the colon)`);
		const i = e.indexOf(":");
		if (i === -1) {
			whole.add(e);
			continue;
		}
		const [s, id] = [e.slice(0, i), e.slice(i + 1)];
		if (!s || !id) fail(`${file}: ${side} entry ${JSON.stringify(e)}: both sides of the colon are required`);
		if (!checks.has(s)) checks.set(s, new Set());
		checks.get(s).add(id);
	}
	for (const s of checks.keys()) {
		if (whole.has(s)) fail(`${file}: ${side} lists ${s} both wholesale and per check`);
	}
	return { whole, checks };
}

// readResults returns scenario -> checks from the checks.json files under
// dir, at any depth (client auth/* scenarios make a subdirectory).
function readResults(dir, side) {
	const out = new Map();
	const walk = (d, depth) => {
		if (depth > 4 || !existsSync(d)) return;
		for (const name of readdirSync(d).sort()) {
			const p = join(d, name);
			if (!statSync(p).isDirectory()) continue;
			const f = join(p, "checks.json");
			if (!existsSync(f)) {
				walk(p, depth + 1);
				continue;
			}
			let scenario = relative(dir, p).split(sep).join("/").replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, "");
			if (side === "server") scenario = scenario.replace(/^server-/, "");
			let checks;
			try {
				checks = JSON.parse(readFileSync(f, "utf8"));
				if (!Array.isArray(checks)) throw new Error("not a JSON array");
			} catch (e) {
				checks = [{ id: "unreadable-checks", status: "FAILURE", errorMessage: `${f}: ${e.message}` }];
			}
			out.set(scenario, { checks, dir: p });
		}
	};
	walk(dir, 0);
	return out;
}

const severity = (s) => (s === "FAILURE" ? 3 : s === "WARNING" ? 2 : s === "SUCCESS" ? 1 : 0);
const failing = (c) => c.status === "FAILURE" || c.status === "WARNING";

// collapse keeps, for each check id, its most severe occurrence (the
// suite's rule for per-check baselines).
function collapse(checks) {
	const best = new Map();
	checks.forEach((c, i) => {
		if (c.status === "INFO") return;
		const j = best.get(c.id);
		if (j === undefined || severity(c.status) >= severity(checks[j].status)) best.set(c.id, i);
	});
	return checks.filter((c, i) => c.status === "INFO" || best.get(c.id) === i);
}

// extraChecks returns this judge's own failures for a scenario (see the
// file comment).
function extraChecks(scenario, result, opts, mayFail) {
	if (!result) return [{ id: "no-result", status: "FAILURE", errorMessage: "no checks.json: the scenario threw (see the run's log), or the run crashed or hit its time limit" }];
	const extra = [];
	if (!result.checks.some((c) => c.status === "SUCCESS")) {
		const statuses = result.checks.map((c) => c.status).join(", ") || "none";
		extra.push({ id: "no-successful-check", status: "FAILURE", errorMessage: `no check succeeded (checks: ${statuses})` });
	}
	if (opts.side === "client" && opts.exits && !mayFail.has(scenario)) {
		const f = join(opts.exits, scenario.replaceAll("/", "_"));
		const status = existsSync(f) ? readFileSync(f, "utf8").trim() : "";
		if (status === "") extra.push({ id: "client-exit", status: "FAILURE", errorMessage: "the client left no exit status (killed at the time limit?)" });
		else if (status !== "0") extra.push({ id: "client-exit", status: "FAILURE", errorMessage: `the client exited with status ${status}` });
	}
	return extra;
}

function main() {
	const opts = parseArgs(process.argv.slice(2));
	const req = loadYAML(opts.requirements, opts["yaml-from"] ?? opts.requirements);
	const scenarios = scenariosOf(req, opts.side, opts.requirements);
	const baseline = parseBaseline(loadYAML(opts.baseline, opts["yaml-from"] ?? opts.requirements), opts.side, opts.baseline);
	const mayFail = new Set((opts["client-may-fail"] ?? "").split(",").filter(Boolean));
	const results = readResults(opts.results, opts.side);

	for (const s of [...baseline.whole, ...baseline.checks.keys()]) {
		if (!scenarios.has(s)) console.log(`  ! baseline entry for ${s}: not a ${opts.side} scenario of this requirement set (ignored)`);
	}
	for (const s of results.keys()) {
		if (!scenarios.has(s)) scenarios.set(s, "not in the requirement set");
	}

	const t = { passed: 0, failed: 0, warnings: 0, run: 0, ok: 0, expected: 0, unexpected: 0, stale: 0, countedPassed: 0, countedFailed: 0 };
	for (const [s, kind] of scenarios) {
		const result = results.get(s);
		const checks = [...(result?.checks ?? []), ...extraChecks(s, result, opts, mayFail)];
		const n = (st) => checks.filter((c) => c.status === st).length;
		const [p, f, w] = [n("SUCCESS"), n("FAILURE"), n("WARNING")];
		t.passed += p;
		t.failed += f;
		t.warnings += w;
		t.run += result ? 1 : 0;
		const counts = `${p} passed, ${f} failed${w ? `, ${w} warnings` : ""}`;
		const tag = kind === "scored" ? "" : ` (${kind})`;
		const bad = checks.filter(failing);
		let unexpected = [];
		let stale = [];
		if (baseline.whole.has(s)) {
			if (bad.length > 0) {
				t.expected++;
				console.log(`~ ${s}: ${counts}${tag} — expected failure (baseline)`);
			} else {
				stale = [s];
			}
		} else {
			t.countedPassed += p;
			const listed = baseline.checks.get(s) ?? new Set();
			const collapsed = collapse(checks);
			unexpected = collapsed.filter((c) => failing(c) && !listed.has(c.id));
			const expectedChecks = collapsed.filter((c) => failing(c) && listed.has(c.id));
			for (const id of listed) {
				if (collapsed.find((c) => c.id === id && c.status !== "INFO")?.status === "SUCCESS") stale.push(`${s}:${id}`);
			}
			if (unexpected.length === 0 && stale.length === 0) {
				if (expectedChecks.length > 0) {
					t.expected++;
					console.log(`~ ${s}: ${counts}${tag} — expected failures (baseline): ${expectedChecks.map((c) => c.id).join(", ")}`);
				} else {
					t.ok++;
					console.log(`✓ ${s}: ${counts}${tag}`);
				}
			}
		}
		if (unexpected.length > 0) {
			t.unexpected++;
			t.countedFailed += unexpected.length;
			console.log(`✗ ${s}: ${counts}${tag} — UNEXPECTED failure (not in the baseline):`);
			for (const c of unexpected) console.log(`    [${c.id}] ${c.status}: ${String(c.errorMessage ?? c.description ?? "").replace(/\s+/g, " ").slice(0, 400)}`);
			const stderr = result && join(result.dir, "stderr.txt");
			if (stderr && existsSync(stderr)) {
				const lines = readFileSync(stderr, "utf8").trim().split("\n").filter(Boolean).slice(-5);
				for (const l of lines) console.log(`    client stderr: ${l.slice(0, 300)}`);
			}
		}
		if (stale.length > 0) {
			t.stale++;
			t.countedFailed += stale.length;
			console.log(`✗ ${s}: ${counts}${tag} — STALE baseline entry, now passing (remove it): ${stale.join(", ")}`);
		}
	}
	console.log(
		`judge: ${t.passed} passed, ${t.failed} failed, ${t.warnings} warnings; ` +
			`scenarios: ${scenarios.size} judged, ${t.run} with results, ${t.ok} passed, ${t.expected} expected failures, ${t.unexpected} unexpected, ${t.stale} stale; ` +
			`counted: ${t.countedPassed} passed, ${t.countedFailed} failed`,
	);
	process.exit(t.unexpected > 0 || t.stale > 0 ? 1 : 0);
}

main();
