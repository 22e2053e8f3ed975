import reactHooks from "eslint-plugin-react-hooks";
import rootConfig from "../../eslint.config.js";

export default [
  ...rootConfig,
  reactHooks.configs.flat["recommended-latest"] ?? reactHooks.configs.flat.recommended,
];
