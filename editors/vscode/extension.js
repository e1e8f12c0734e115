// The rgt extension: starts `rgt lsp` for RG, HRG, RBG, KIF and LineGames files, and adds a
// command that shows the game's statistics and its automaton as DOT (`rgt/gameInfo`).
const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');

const LANGUAGES = ['rg', 'hrg', 'rbg', 'kif', 'lg'];
let client;

function activate(context) {
  const config = vscode.workspace.getConfiguration('rgt');
  const serverOptions = { command: config.get('path') || 'rgt', args: ['lsp'] };
  const clientOptions = {
    documentSelector: LANGUAGES.map((language) => ({ language })),
    initializationOptions: {
      allow: config.get('allow') || [],
      denyWarnings: !!config.get('denyWarnings'),
      sizeLimit: config.get('sizeLimit') ?? null,
    },
  };
  client = new LanguageClient('rgt', 'rgt', serverOptions, clientOptions);
  client.start();

  const output = vscode.window.createOutputChannel('rgt');
  context.subscriptions.push(output, vscode.commands.registerCommand('rgt.gameInfo', async () => {
    const editor = vscode.window.activeTextEditor;
    if (!editor || !LANGUAGES.includes(editor.document.languageId)) {
      vscode.window.showWarningMessage('rgt: open a game file first');
      return;
    }
    const info = await client.sendRequest('rgt/gameInfo', {
      textDocument: { uri: editor.document.uri.toString() },
    });
    output.clear();
    if (info.diagnostics) output.appendLine(info.diagnostics);
    if (info.stats) {
      for (const [k, v] of Object.entries(info.stats)) output.appendLine(`${k}: ${v}`);
    }
    output.show(true);
    if (info.dot) {
      const doc = await vscode.workspace.openTextDocument({ content: info.dot, language: 'dot' });
      await vscode.window.showTextDocument(doc, { preview: true, viewColumn: vscode.ViewColumn.Beside });
    }
  }));
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
