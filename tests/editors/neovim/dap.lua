-- Headless Neovim (0.11) speaking the Debug Adapter Protocol to `python -m pyserver dap`, the way
-- nvim-dap does: nvim-dap itself is a plugin from GitHub that no package registry reachable by this
-- project ships, so this client sends nvim-dap's requests in nvim-dap's order with nvim-dap's
-- arguments (lua/dap/session.lua): initialize, then the configuration table as the launch request;
-- on `initialized`, setBreakpoints per file, setExceptionBreakpoints (the default filters) and
-- configurationDone; on `stopped`, threads, stackTrace, scopes and variables. The adapter and
-- configuration tables are the ones docs/editors.md gives for nvim-dap.
--
-- Environment: NUMBA_LENS_PYTHON, NUMBA_LENS_PROGRAM, NUMBA_LENS_BREAK_LINE, NUMBA_LENS_OUT (JSON).
-- It asserts nothing: tests/editors/test_neovim.py does.
local python = assert(os.getenv("NUMBA_LENS_PYTHON"))
local program = assert(os.getenv("NUMBA_LENS_PROGRAM"))
local break_line = tonumber(assert(os.getenv("NUMBA_LENS_BREAK_LINE")))
local out = assert(os.getenv("NUMBA_LENS_OUT"))
local timeout_ms = 180000

-- What a user puts in init.lua for nvim-dap (docs/editors.md, "Neovim").
local adapter = { type = "executable", command = python, args = { "-m", "pyserver", "dap" } }
local configuration = {
  type = "numba",
  request = "launch",
  name = "Numba: mixed (this file)",
  program = program, -- "${file}" in the user's table; nvim-dap expands it before sending
  cwd = vim.fs.dirname(program), -- "${workspaceFolder}"
  mode = "mixed",
  python = python,
  justMyCode = true,
}

local result = { errors = {}, events = {}, output = "" }
local seq = 0
local pending = {} -- seq -> response, once it arrived
local events = {} -- every event, in order
local raw = ""
local process

local function send(message)
  local body = vim.json.encode(message)
  process:write(string.format("Content-Length: %d\r\n\r\n%s", #body, body))
end

-- Parse whatever the adapter wrote so far (runs on the main loop, inside vim.wait's predicate).
local function pump()
  while true do
    local header_end = raw:find("\r\n\r\n", 1, true)
    if not header_end then
      return
    end
    local length = tonumber(raw:sub(1, header_end):match("Content%-Length: *(%d+)"))
    if #raw < header_end + 3 + length then
      return
    end
    local message = vim.json.decode(raw:sub(header_end + 4, header_end + 3 + length))
    raw = raw:sub(header_end + 4 + length)
    if message.type == "response" then
      pending[message.request_seq] = message
    elseif message.type == "event" then
      table.insert(events, message)
      if message.event == "output" and message.body and message.body.output then
        result.output = result.output .. message.body.output
      end
    elseif message.type == "request" then
      -- A reverse request (runInTerminal) is not expected with the default console.
      table.insert(result.errors, "unexpected reverse request " .. tostring(message.command))
      send({ seq = 0, type = "response", request_seq = message.seq, command = message.command, success = false })
    end
  end
end

local function request(command, arguments)
  seq = seq + 1
  send({ seq = seq, type = "request", command = command, arguments = arguments })
  return seq
end

local function response_to(id)
  if not vim.wait(timeout_ms, function() pump(); return pending[id] ~= nil end, 20) then
    error("no response to request " .. id)
  end
  local response = pending[id]
  if not response.success then
    error(response.command .. " failed: " .. tostring(response.message))
  end
  return response.body or {}
end

local function call(command, arguments)
  return response_to(request(command, arguments))
end

local seen = 0
local function next_event(name)
  local found
  local ok = vim.wait(timeout_ms, function()
    pump()
    while seen < #events do
      seen = seen + 1
      table.insert(result.events, events[seen].event)
      if events[seen].event == name then
        found = events[seen]
        return true
      end
    end
    return false
  end, 20)
  if not ok then
    error("no " .. name .. " event")
  end
  return found
end

local ok, err = pcall(function()
  process = vim.system({ adapter.command, unpack(adapter.args) }, {
    stdin = true,
    stdout = function(_, data)
      if data then
        raw = raw .. data
      end
    end,
    stderr = function(_, data)
      if data then
        result.adapter_stderr = (result.adapter_stderr or "") .. data
      end
    end,
  })

  local capabilities = call("initialize", {
    clientID = "neovim",
    clientName = "neovim",
    adapterID = "nvim-dap",
    pathFormat = "path",
    columnsStartAt1 = true,
    linesStartAt1 = true,
    supportsRunInTerminalRequest = true,
    supportsVariableType = true,
    supportsProgressReporting = true,
    supportsStartDebuggingRequest = true,
    locale = os.getenv("LANG") or "en_US",
  })
  result.supports_configuration_done = capabilities.supportsConfigurationDoneRequest or false
  local launch = request(configuration.request, configuration)
  next_event("initialized")
  local set = call("setBreakpoints", {
    source = { path = program, name = vim.fn.fnamemodify(program, ":t") },
    breakpoints = { { line = break_line } },
    lines = { break_line },
  })
  result.breakpoints = set.breakpoints
  if capabilities.exceptionBreakpointFilters then
    local filters = {}
    for _, filter in ipairs(capabilities.exceptionBreakpointFilters) do
      if filter.default then
        table.insert(filters, filter.filter)
      end
    end
    call("setExceptionBreakpoints", { filters = filters })
  end
  if capabilities.supportsConfigurationDoneRequest then
    call("configurationDone", vim.empty_dict())
  end
  response_to(launch)

  local stopped = next_event("stopped").body
  result.stopped = { reason = stopped.reason, threadId = stopped.threadId }
  call("threads", vim.empty_dict())
  local frames = call("stackTrace", { threadId = stopped.threadId }).stackFrames
  result.stack = {}
  for _, frame in ipairs(frames) do
    table.insert(result.stack, {
      name = frame.name, line = frame.line, path = frame.source and frame.source.path or vim.NIL,
    })
  end
  -- The variables of the top (jitted) frame and of its Python caller, scope by scope.
  result.variables = {}
  for index = 1, math.min(2, #frames) do
    local scopes = call("scopes", { frameId = frames[index].id }).scopes
    local by_scope = {}
    for _, scope in ipairs(scopes) do
      local values = {}
      if not scope.expensive then
        for _, variable in ipairs(call("variables", { variablesReference = scope.variablesReference }).variables) do
          values[variable.name] = variable.value
        end
      end
      by_scope[scope.name] = values
    end
    result.variables[index] = by_scope
  end

  -- Clear the breakpoint and let the program finish, as a user would.
  call("setBreakpoints", {
    source = { path = program, name = vim.fn.fnamemodify(program, ":t") }, breakpoints = {}, lines = {},
  })
  call("continue", { threadId = stopped.threadId })
  local exited = next_event("exited")
  result.exit_code = exited.body.exitCode
  next_event("terminated")
  call("disconnect", { restart = false, terminateDebuggee = true })
end)
if not ok then
  table.insert(result.errors, tostring(err))
end
if process then
  process:write(nil)
  if process:wait(15000).signal == 0 and not ok then
    process:kill("sigterm")
  end
end
local handle = assert(io.open(out, "w"))
handle:write(vim.json.encode(result))
handle:close()
vim.cmd("qall!")
