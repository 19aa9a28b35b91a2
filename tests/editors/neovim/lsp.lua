-- Headless Neovim (0.11) with its built-in LSP client against `python -m pyserver lsp`, configured as
-- docs/editors.md tells users to. Opens NUMBA_LENS_FILE, waits for the diagnostics, asks for a hover
-- on NUMBA_LENS_HOVER_LINE:COL (0-based), inlay hints and code lenses, and writes what arrived to
-- NUMBA_LENS_OUT as JSON. It asserts nothing: tests/editors/test_neovim.py does.
local python = assert(os.getenv("NUMBA_LENS_PYTHON"))
local file = assert(os.getenv("NUMBA_LENS_FILE"))
local out = assert(os.getenv("NUMBA_LENS_OUT"))
local hover_line = tonumber(assert(os.getenv("NUMBA_LENS_HOVER_LINE")))
local hover_col = tonumber(assert(os.getenv("NUMBA_LENS_HOVER_COL")))
local timeout_ms = 180000

local result = { errors = {} }

local function finish()
  local handle = assert(io.open(out, "w"))
  handle:write(vim.json.encode(result))
  handle:close()
  for _, client in ipairs(vim.lsp.get_clients()) do
    client:stop()
  end
  vim.wait(10000, function() return #vim.lsp.get_clients() == 0 end, 100)
  vim.cmd("qall!")
end

local ok, err = pcall(function()
  vim.cmd("filetype on")
  -- What a user puts in init.lua (docs/editors.md, "Neovim").
  vim.lsp.config("numba_lens", {
    cmd = { python, "-m", "pyserver", "lsp" },
    filetypes = { "python" },
    root_markers = { "pyproject.toml", "setup.py", ".git" },
    -- A generous analysis time-out (20 s by default): the test machine may be loaded.
    init_options = { trusted = true, settings = { timeout = 180 } },
    settings = { numbaLens = { timeout = 180, inlayHints = { maxLength = 40 } } },
  })
  vim.lsp.enable("numba_lens")
  vim.api.nvim_create_autocmd("LspAttach", {
    callback = function(args)
      local client = vim.lsp.get_client_by_id(args.data.client_id)
      if client and client.name == "numba_lens" then
        vim.lsp.inlay_hint.enable(true, { bufnr = args.buf })
        vim.lsp.codelens.refresh({ bufnr = args.buf })
        vim.api.nvim_create_autocmd({ "BufWritePost" }, {
          buffer = args.buf,
          callback = function() vim.lsp.codelens.refresh({ bufnr = args.buf }) end,
        })
      end
    end,
  })

  vim.cmd.edit(vim.fn.fnameescape(file))
  local buf = vim.api.nvim_get_current_buf()
  result.attached = vim.wait(timeout_ms, function()
    return #vim.lsp.get_clients({ bufnr = buf, name = "numba_lens" }) > 0
  end, 100)
  local client = vim.lsp.get_clients({ bufnr = buf, name = "numba_lens" })[1]
  if not client then
    error("the numba_lens client did not attach")
  end
  result.server_name = client.server_info and client.server_info.name or nil
  result.capabilities = {
    hover = client.server_capabilities.hoverProvider and true or false,
    inlay_hint = client.server_capabilities.inlayHintProvider and true or false,
    code_lens = client.server_capabilities.codeLensProvider and true or false,
    code_action = client.server_capabilities.codeActionProvider and true or false,
  }

  -- The first analysis starts the worker and imports Numba: seconds on a loaded machine.
  result.got_diagnostics = vim.wait(timeout_ms, function()
    return #vim.diagnostic.get(buf) > 0
  end, 100)
  result.diagnostics = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(result.diagnostics, {
      lnum = d.lnum, col = d.col, end_lnum = d.end_lnum, end_col = d.end_col,
      message = d.message, code = d.code, source = d.source, severity = d.severity,
    })
  end

  -- What the editor itself shows, through the autocommand above: inlay hints, and lenses once a
  -- save asks for them again after the analysis.
  result.inlay_hints_enabled = vim.lsp.inlay_hint.is_enabled({ bufnr = buf })
  vim.cmd("silent write")
  result.displayed_lenses = vim.wait(timeout_ms, function()
    return #vim.lsp.codelens.get(buf) > 0
  end, 100)

  local function request(method, params)
    local responses = vim.lsp.buf_request_sync(buf, method, params, timeout_ms)
    for _, response in pairs(responses or {}) do
      if response.err then
        table.insert(result.errors, method .. ": " .. vim.inspect(response.err))
      end
      return response.result
    end
  end

  local uri = vim.uri_from_bufnr(buf)
  local hover = request("textDocument/hover", {
    textDocument = { uri = uri },
    position = { line = hover_line, character = hover_col },
  })
  result.hover = hover and hover.contents and (hover.contents.value or hover.contents) or vim.NIL

  local last = vim.api.nvim_buf_line_count(buf)
  local hints = request("textDocument/inlayHint", {
    textDocument = { uri = uri },
    range = { start = { line = 0, character = 0 }, ["end"] = { line = last, character = 0 } },
  }) or {}
  result.inlay_hints = {}
  for _, hint in ipairs(hints) do
    local label = hint.label
    if type(label) == "table" then
      local parts = {}
      for _, part in ipairs(label) do
        table.insert(parts, part.value)
      end
      label = table.concat(parts)
    end
    table.insert(result.inlay_hints, { line = hint.position.line, character = hint.position.character, label = label })
  end

  local lenses = request("textDocument/codeLens", { textDocument = { uri = uri } }) or {}
  result.code_lenses = {}
  for _, lens in ipairs(lenses) do
    table.insert(result.code_lenses, {
      line = lens.range.start.line,
      title = lens.command and lens.command.title or vim.NIL,
      command = lens.command and lens.command.command or vim.NIL,
    })
  end
end)
if not ok then
  table.insert(result.errors, tostring(err))
end
finish()
