//! End-to-end test of `rgt lsp` with a real editor: Neovim, headless, opens a broken HRG file
//! and a broken KIF file, waits for the diagnostics the server publishes, prints them, then
//! runs go-to-definition (`vim.lsp.buf.definition()`, the command a user maps to `gd`) and
//! prints where the cursor went. Skipped, with a message, where `nvim` is not installed
//! (`.ci/run` installs it).
#![allow(clippy::print_stdout)] // a test says when it skips

mod common;
use common::settings;

use std::path::Path;
use std::process::Command;

/// The Neovim side: a client started with the API of Neovim 0.7 and later
/// (`vim.lsp.start_client` + `vim.lsp.buf_attach_client`).
const SCRIPT: &str = r#"
local out = assert(io.open(os.getenv('RGT_NVIM_OUT'), 'w'))
local function log(s) out:write(s .. '\n') end
-- The server follows each publication of diagnostics with `rgt/checked`; `complete` is false
-- after the fast check of a GDL file (the translation's diagnostics follow).
local complete = {}
local client = vim.lsp.start_client({
  cmd = { os.getenv('RGT_BIN'), 'lsp' },
  name = 'rgt',
  root_dir = os.getenv('RGT_NVIM_DIR'),
  handlers = {
    ['rgt/checked'] = function(_, result)
      if result.complete then complete[result.uri] = true end
    end,
  },
})
if not client then
  log('the client did not start')
  out:close()
  vim.cmd('qa!')
end

local function visit(file, line, col, word)
  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  local buf = vim.api.nvim_get_current_buf()
  vim.lsp.buf_attach_client(buf, client)
  local uri = vim.uri_from_bufnr(buf)
  local ok = vim.wait(60000, function()
    return complete[uri] and #vim.diagnostic.get(buf) > 0
  end, 20)
  log(vim.fn.fnamemodify(file, ':t') .. (ok and '' or ': no diagnostics'))
  local diags = vim.diagnostic.get(buf)
  table.sort(diags, function(a, b)
    return a.lnum < b.lnum or (a.lnum == b.lnum and a.col < b.col)
  end)
  for _, d in ipairs(diags) do
    local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code) or ''
    local first = d.message:gsub('\n.*', '')
    log(string.format('  %d:%d %s [%s] %s', d.lnum + 1, d.col + 1,
      vim.diagnostic.severity[d.severity], code, first))
  end
  vim.api.nvim_win_set_cursor(0, { line, col - 1 })
  vim.lsp.buf.definition()
  local moved = vim.wait(30000, function()
    local c = vim.api.nvim_win_get_cursor(0)
    return c[1] ~= line or c[2] ~= col - 1
  end, 20)
  local c = vim.api.nvim_win_get_cursor(0)
  log(string.format('  definition of `%s` at %d:%d: %d:%d%s', word, line, col, c[1], c[2] + 1,
    moved and '' or ' (the cursor did not move)'))
end

visit(os.getenv('RGT_NVIM_DIR') .. '/broken.hrg', 12, 3, 'turn')
visit(os.getenv('RGT_NVIM_DIR') .. '/broken.kif', 6, 22, 'terminal')
vim.lsp.stop_client(client)
out:close()
vim.cmd('qa!')
"#;

const HRG: &str = "\
domain Player = one | two
domain Score = 0 | 100

graph turn(me: Player) {
  player = me
  $ pass
}

graph rules() {
  trun(one)
  turn(tow)
  turn(two)
  end()
}
";

const KIF: &str = "\
(role red)
(init (cell a))
(<= (legal red (go ?x)) (true (cell ?x)))
(<= (next (cell ?x)) (does red (go ?x)))
(<= terminal (true (cell b)))
(<= (goal red 100) terminal)
(<= (goal red 0) (not terminal) (pos ?y))
";

#[test]
fn neovim_shows_diagnostics_and_goes_to_definitions() {
    if Command::new("nvim").arg("--version").output().is_err() {
        println!("skipped: Neovim (`nvim`) is not installed; `.ci/run` installs it");
        return;
    }
    let dir = std::env::temp_dir().join(format!("rgt-nvim-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(dir.join("broken.hrg"), HRG).expect("write");
    std::fs::write(dir.join("broken.kif"), KIF).expect("write");
    let script = dir.join("test.lua");
    std::fs::write(&script, SCRIPT).expect("write");
    let out_file = dir.join("out.txt");
    let status = Command::new("nvim")
        .args(["--headless", "--clean", "-n", "-u", "NONE", "-c"])
        .arg(format!("luafile {}", script.display()))
        .env("RGT_BIN", env!("CARGO_BIN_EXE_rgt"))
        .env("RGT_NVIM_DIR", &dir)
        .env("RGT_NVIM_OUT", &out_file)
        .current_dir(&dir)
        .status()
        .expect("nvim runs");
    let out = std::fs::read_to_string(&out_file).unwrap_or_default();
    let _ = std::fs::remove_dir_all(Path::new(&dir));
    assert!(status.success(), "nvim failed ({status}); it wrote:\n{out}");
    settings("lsp").bind(|| insta::assert_snapshot!("neovim", out));
}
