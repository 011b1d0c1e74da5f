#!/usr/bin/env node
// romis sample bot in JavaScript: answers every request with a random legal option, on the helper romis.js.
"use strict";
const { run } = require("./romis");

// mulberry32, seeded from hello.seed, so that a seeded match replays the same
let state = 1;
const random = () => {
  state = (state + 0x6d2b79f5) | 0;
  let t = Math.imul(state ^ (state >>> 15), 1 | state);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const pick = (xs) => xs[Math.floor(random() * xs.length)];

run((request) => [pick(request.decision.options || [])], {
  name: "random-js",
  version: "1",
  onHello: (hello) => {
    state = (hello.seed || 1) | 0;
  },
});
