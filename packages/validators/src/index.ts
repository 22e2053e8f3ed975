export * from "./decimal.js";
export * from "./query.js";
export * from "./schemas.js";
export * from "./rating.js";
export * from "./python.js";
export * from "./scripts.js";
export * from "./warning-acks.js";
export * from "./lifecycle.js";
