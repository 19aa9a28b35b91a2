// Recompiles explained: the text of the view the "N compiles · T s" lens opens. The server's
// numbaLens/compiles request gives each compile a recorded run made of one function, in order: its
// argument types, how long it took, which argument's type made Numba compile again, and for cache=True
// functions whether Numba's cache index holds it. No vscode import here: the unit tests run in node.

export interface ArgumentChange {
  index: number;
  name: string;
  before: string;
  after: string;
  what: string;
}

export interface CompileRecord {
  args: string[];
  ok: boolean;
  seconds: number | null;
  kernel: string | null;
  changed: ArgumentChange[];
  because: string;
  cache: { state: "hit" | "stale" | "miss" | "unknown"; reason: string } | null;
}

export interface CompilesResult {
  function: string;
  path: string;
  summary: string;
  compiles: CompileRecord[];
}

const CACHE_TEXT: Record<string, string> = {
  hit: "cache hit next time",
  stale: "stale cache hit next time",
  miss: "cache miss next time",
  unknown: "cache unknown",
};

export function formatSeconds(seconds: number | null): string {
  if (seconds === null) return "time not recorded";
  return seconds < 1 ? `${Math.round(seconds * 1000)} ms` : `${seconds.toFixed(2)} s`;
}

/** The view as Markdown: one section per compile, the first marked as such, the others with their reason. */
export function renderCompiles(result: CompilesResult): string {
  const lines = [`# ${result.function}: ${result.summary}`, "", `\`${result.path}\``, ""];
  if (result.compiles.length === 0) {
    lines.push(
      "No compile of this function was recorded. Run your program or tests once with signature recording " +
        "(command “Numba Lens: Record signatures”, or `python -m pyserver record -- python your_script.py`).",
    );
    return lines.join("\n") + "\n";
  }
  result.compiles.forEach((compile, index) => {
    const loop = compile.kernel ? ` (${compile.kernel} loop)` : "";
    lines.push(`## ${index + 1}. (${compile.args.join(", ")})${loop}`, "");
    const facts = [formatSeconds(compile.seconds)];
    if (!compile.ok) facts.push("the compile failed");
    if (compile.cache) facts.push(`${CACHE_TEXT[compile.cache.state] ?? compile.cache.state}: ${compile.cache.reason}`);
    lines.push(`- ${facts.join(" · ")}`);
    if (index === 0) lines.push("- the first compile");
    else {
      lines.push("- compiled again because:");
      for (const change of compile.changed) lines.push(`  - \`${change.name}\`: ${change.what}`);
      if (compile.changed.length === 0) lines.push(`  - ${compile.because}`);
    }
    lines.push("");
  });
  return lines.join("\n");
}
