// The ids of every command the extension registers (package.json contributes the same list; the
// manifest test compares them). No `vscode` import (read by the unit tests under node).
export const COMMAND_IDS = [
  "numbaLens.restart",
  "numbaLens.showLog",
  "numbaLens.showDebugInfo",
  "numbaLens.installGdb",
  "numbaLens.recordSignaturesInTerminal",
  "numbaLens.showTypes",
  "numbaLens.showNumbaIR",
  "numbaLens.showLLVM",
  "numbaLens.showAssembly",
  "numbaLens.showTypeStability",
  "numbaLens.showCompiles",
  "numbaLens.debugJitFunction",
  "numbaLens.profileFile",
  "numbaLens.profileTest",
  "numbaLens.profileLaunch",
  "numbaLens.showFlameGraph",
  "numbaLens.clearProfile",
] as const;

export type CommandId = (typeof COMMAND_IDS)[number];
