import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["**/dist/**", "**/generated/**", "**/node_modules/**", "**/*.config.*"] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/consistent-type-imports": "error",
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", ignoreRestSiblings: true },
      ],
    },
  },
  {
    // The domain knows no framework: it raises DomainError (domain/errors.ts) and trpc.ts maps it.
    files: ["packages/api/src/domain/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["@trpc/*", "trpc-to-openapi", "zod-openapi"],
              message: "The domain knows no framework.",
            },
            {
              group: ["../trpc.js", "../routers/*", "../root.js"],
              message: "Imports go router -> domain, never back.",
            },
          ],
        },
      ],
    },
  },
  {
    // Libraries beneath the API (policy, accounts, pricing, validators, database) know no transport.
    files: [
      "packages/policy/src/**/*.ts",
      "packages/accounts/src/**/*.ts",
      "packages/rating/src/**/*.ts",
      "packages/validators/src/**/*.ts",
      "packages/db/src/**/*.ts",
    ],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["@trpc/*", "trpc-to-openapi", "@ratecard/api", "@ratecard/server"],
              message: "Libraries do not depend on the API or the server.",
            },
          ],
        },
      ],
    },
  },
  {
    // Tests (and the server's benchmarks, tests too) read raw JSON answers; typing every body would only restate the assertions.
    files: ["**/test/**/*.ts", "**/e2e/**/*.ts", "apps/server/bench/**/*.ts"],
    rules: {
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-return": "off",
    },
  },
);
