#!/usr/bin/env node
// romis sample bot in JavaScript: answers every request with a random legal option.
// Protocol v1: one JSON object per line on stdin/stdout (see docs/protocol.md).
"use strict";
const readline = require("readline");

const rl = readline.createInterface({ input: process.stdin, terminal: false });
const send = (msg) => process.stdout.write(JSON.stringify(msg) + "\n");
// mulberry32, seeded from hello.seed, so that a seeded match replays the same
let state = 1;
const random = () => {
  state = (state + 0x6d2b79f5) | 0;
  let t = Math.imul(state ^ (state >>> 15), 1 | state);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const pick = (xs) => xs[Math.floor(random() * xs.length)];

rl.on("line", (line) => {
  const msg = JSON.parse(line);
  switch (msg.type) {
    case "hello":
      state = (msg.seed || 1) | 0;
      send({ type: "ready", name: "random-js", version: "1" });
      break;
    case "request": {
      const options = msg.decision.options || [];
      send({ type: "play", id: msg.id, ops: [pick(options)] });
      break;
    }
    case "shutdown":
      process.exit(0);
  }
});
