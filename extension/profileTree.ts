// The hot-spots view: functions by their own share of the samples, each with its hottest lines; a
// click opens the line.
import * as vscode from "vscode";
import { HotFunction, hotSpots, Profile, summary } from "./profileModel";

type Node = { kind: "function"; item: HotFunction } | { kind: "line"; item: HotFunction["lines"][number] } | { kind: "note"; text: string };

export class ProfileTree implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private roots: Node[] = [{ kind: "note", text: "No profile yet: run “Numba Lens: Profile this file”." }];

  /** Shows the profile; returns the hottest function's node (to reveal the view on), if any. */
  show(profile: Profile): Node | undefined {
    const functions = hotSpots(profile).map((item): Node => ({ kind: "function", item }));
    this.roots = [{ kind: "note", text: summary(profile) }, ...functions];
    this.changed.fire(undefined);
    return functions[0];
  }

  getChildren(node?: Node): Node[] {
    if (!node) return this.roots;
    if (node.kind === "function") return node.item.lines.map((item): Node => ({ kind: "line", item }));
    return [];
  }

  // TreeView.reveal asks for the parents: functions and notes are roots, lines belong to a function.
  getParent(node: Node): Node | undefined {
    if (node.kind !== "line") return undefined;
    return this.roots.find((root) => root.kind === "function" && root.item.lines.includes(node.item));
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if (node.kind === "note") return new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
    if (node.kind === "function") {
      const state = node.item.lines.length ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None;
      const tree = new vscode.TreeItem(node.item.label, state);
      tree.description = node.item.description;
      tree.iconPath = new vscode.ThemeIcon(node.item.label.includes("[jit]") ? "zap" : "symbol-function");
      const first = node.item.lines[0];
      if (first) tree.command = openLine(first.path, first.line);
      return tree;
    }
    const tree = new vscode.TreeItem(node.item.label, vscode.TreeItemCollapsibleState.None);
    tree.description = node.item.description;
    tree.command = openLine(node.item.path, node.item.line);
    return tree;
  }

  dispose(): void {
    this.changed.dispose();
  }
}

function openLine(path: string, line: number): vscode.Command {
  const position = new vscode.Position(line, 0);
  return {
    command: "vscode.open",
    title: "Open",
    arguments: [vscode.Uri.file(path), { selection: new vscode.Range(position, position) }],
  };
}
