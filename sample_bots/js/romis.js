// romis bot helper for JavaScript (protocol v1): the read-decide-write loop for a callback. CommonJS, no
// dependency beyond Node itself. Copy this file next to your bot:
//
//   const { run } = require("./romis");
//   run((request) => [request.decision.options[0]], { name: "first-option" });
//
// decide(request) gets each request as its parsed JSON (docs/protocol.md) and returns the ops to play.
// Hooks onHello, onRejected, onDealOver, onMatchOver see the other messages. The bot exits on shutdown or at
// the end of input; a line that is not a JSON object, a message of an unknown type or a request before hello
// ends it with one line on stderr and exit code 1.
"use strict";
const readline = require("readline");

function run(decide, { name = "", version = "1", onHello, onRejected, onDealOver, onMatchOver } = {}) {
  const hooks = { hello: onHello, rejected: onRejected, deal_over: onDealOver, match_over: onMatchOver };
  const send = (msg) => process.stdout.write(JSON.stringify(msg) + "\n");
  const fail = (why) => {
    process.stderr.write(`${name || "bot"}: ${why}\n`);
    process.exit(1);
  };
  let greeted = false;
  const rl = readline.createInterface({ input: process.stdin, terminal: false });
  rl.on("line", (line) => {
    let msg;
    try {
      msg = JSON.parse(line);
    } catch (e) {
      fail(`cannot read a line from the referee: ${e.message}`);
    }
    if (msg === null || typeof msg !== "object") fail("the referee sent a line that is not a JSON object");
    if (msg.type === "shutdown") process.exit(0);
    if (!(msg.type in hooks) && msg.type !== "request") fail(`unknown message type ${JSON.stringify(msg.type)}`);
    if (hooks[msg.type]) hooks[msg.type](msg);
    if (msg.type === "hello") {
      greeted = true;
      send({ type: "ready", name, version });
    } else if (msg.type === "request") {
      if (!greeted) fail("a request came before hello");
      send({ type: "play", id: msg.id, ops: decide(msg) });
    }
  });
  rl.on("close", () => process.exit(0));
}

module.exports = { run };
