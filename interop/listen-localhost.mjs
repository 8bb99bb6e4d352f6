// listen-localhost.mjs: preloaded by http_test.go (node --import) into
// server-everything's Streamable HTTP mode, which calls app.listen(PORT)
// and so would listen on every interface. Any listen on a bare port is
// bound to 127.0.0.1 instead, and once listening the address is printed on
// stderr as "mcpgen-interop: listening on 127.0.0.1:PORT" (with PORT=0 the
// system chooses a free port, which the test reads from that line).
import net from "node:net";

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const port = args[0];
  const bare = typeof port === "number" || (typeof port === "string" && /^\d+$/.test(port));
  if (!bare) {
    return listen.apply(this, args);
  }
  this.once("listening", () => {
    const a = this.address();
    process.stderr.write(`mcpgen-interop: listening on ${a.address}:${a.port}\n`);
  });
  // listen(port[, host][, backlog][, callback]): keep only the callback.
  const last = args[args.length - 1];
  const rest = typeof last === "function" ? [last] : [];
  return listen.call(this, Number(port), "127.0.0.1", ...rest);
};
