import { python } from "@codemirror/lang-python";
import { linter, lintGutter, type Diagnostic } from "@codemirror/lint";
import { EditorView } from "@codemirror/view";
import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation, useQuery } from "@tanstack/react-query";
import { getRouteApi, useBlocker, useNavigate } from "@tanstack/react-router";
import CodeMirror from "@uiw/react-codemirror";
import { useEffect, useId, useRef, useState } from "react";
import { Controller, useForm } from "react-hook-form";
import { toast } from "sonner";
import { z } from "zod";
import {
  checkPythonSyntax,
  formatPythonSyntaxError,
  ZScriptCreate,
  type TScript,
} from "@ratecard/validators";
import { Breadcrumbs } from "../components/Breadcrumbs";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { ConflictDialog, useConflictAuthor } from "../components/ConflictDialog";
import { DeleteScriptDialog } from "../components/DeleteDialogs";
import { FormField } from "../components/FormField";
import { MissingRecord, QueryState } from "../components/QueryState";
import { RecordHeader } from "../components/RecordHeader";
import { useRefreshAll } from "../hooks";
import {
  conflictOf,
  diffValues,
  isConflict,
  type ConflictInfo,
  type FieldDifference,
} from "../lib/conflict";
import { describeProblem } from "../lib/errors";
import { ReadOnlyNotice, useCan } from "../session/permissions";
import { useTRPC, useTRPCClient } from "../trpc";

// Loaded on demand: CodeMirror is the largest part of the console.

interface ScriptFormValues {
  name: string;
  data: string;
}

const ZScriptForm = z
  .object({ name: z.string(), data: z.string() })
  .refine((values) => values.data.trim() !== "", {
    path: ["data"],
    message: "Paste the script's source or load it from a file.",
  })
  .pipe(ZScriptCreate);

const route = getRouteApi("/pyscripts/$scriptId");

/** The server's own syntax check, run as the operator types (the linter waits for a pause). */
const pythonSyntax = linter(
  (view): Diagnostic[] => {
    const source = view.state.doc.toString();
    const error = checkPythonSyntax(source);
    if (!error) return [];
    // Mark the character at the error, or the one before it at the end of a line or script:
    // a zero-width mark is hard to see.
    const at = Math.min(error.offset, source.length);
    const onCharacter = at < source.length && !/[\r\n]/.test(source.charAt(at));
    return [
      {
        from: onCharacter ? at : Math.max(0, at - 1),
        to: onCharacter ? at + 1 : at,
        severity: "error",
        source: "Python syntax",
        message: formatPythonSyntaxError(error),
      },
    ];
  },
  { delay: 300 },
);

function SourceEditor({
  value,
  onChange,
  error,
  labelId,
  errorId,
  readOnly,
  focusRef,
}: {
  value: string;
  onChange: (value: string) => void;
  error?: string | undefined;
  labelId: string;
  errorId: string;
  readOnly: boolean;
  /** react-hook-form focuses the first invalid field through this. */
  focusRef: (target: { focus: () => void } | null) => void;
}) {
  return (
    <div className={`editor${error ? " has-error" : ""}`}>
      <CodeMirror
        value={value}
        onChange={onChange}
        onCreateEditor={(view) =>
          focusRef({
            // A refused save puts the cursor on the syntax error.
            focus: () => {
              const error = checkPythonSyntax(view.state.doc.toString());
              if (error) {
                const anchor = Math.min(error.offset, view.state.doc.length);
                view.dispatch({ selection: { anchor }, scrollIntoView: true });
              }
              view.focus();
            },
          })
        }
        editable={!readOnly}
        readOnly={readOnly}
        height="420px"
        // Tab leaves the editor, so keyboard users are not trapped in it.
        indentWithTab={false}
        extensions={[
          python(),
          ...(readOnly ? [] : [pythonSyntax, lintGutter()]),
          EditorView.contentAttributes.of({
            "aria-labelledby": labelId,
            "aria-multiline": "true",
            ...(error ? { "aria-invalid": "true", "aria-describedby": errorId } : {}),
          }),
        ]}
        basicSetup={{ foldGutter: false, highlightActiveLine: true }}
      />
    </div>
  );
}

function ScriptForm({
  defaults,
  submitLabel,
  onSave,
  onCancel,
  children,
}: {
  defaults: ScriptFormValues;
  submitLabel: string;
  onSave: (values: ScriptFormValues) => Promise<unknown>;
  onCancel: () => void;
  children?: React.ReactNode;
}) {
  const sourceLabelId = useId();
  const sourceErrorId = useId();
  const readOnly = !useCan().writeRules;
  const form = useForm<ScriptFormValues>({
    defaultValues: defaults,
    resolver: zodResolver(ZScriptForm),
  });
  const { errors, isSubmitting, isDirty } = form.formState;
  const [loadedFile, setLoadedFile] = useState<string | null>(null);

  // Leaving with typed changes asks first; a save or an explicit discard lets the page go.
  const leavingRef = useRef(false);
  const dirtyRef = useRef(isDirty);
  useEffect(() => {
    dirtyRef.current = isDirty && !readOnly;
  }, [isDirty, readOnly]);
  const blocker = useBlocker({
    shouldBlockFn: () => dirtyRef.current && !leavingRef.current,
    enableBeforeUnload: () => dirtyRef.current && !leavingRef.current,
    withResolver: true,
  });

  const loadFile = async (file: File | undefined) => {
    if (!file) return;
    const text = await file.text();
    form.setValue("data", text, { shouldDirty: true, shouldValidate: true });
    if (!form.getValues("name").trim())
      form.setValue("name", file.name.replace(/\.py$/i, ""), { shouldDirty: true });
    setLoadedFile(
      `${file.name} (${text.split("\n").length} lines) loaded into the editor. Review it, then save.`,
    );
  };

  const save = async (values: ScriptFormValues) => {
    leavingRef.current = true;
    try {
      await onSave(values);
      form.reset(values);
    } catch (error) {
      const problem = describeProblem(error);
      if (problem.code === "CONFLICT") {
        form.setError(
          "name",
          { message: `${problem.message} Choose another name.` },
          { shouldFocus: true },
        );
      } else if (problem.fieldErrors.name || problem.fieldErrors.data) {
        if (problem.fieldErrors.name) form.setError("name", { message: problem.fieldErrors.name });
        if (problem.fieldErrors.data) form.setError("data", { message: problem.fieldErrors.data });
      } else {
        form.setError("root", { message: problem.message });
      }
      toast.error(problem.message);
    } finally {
      leavingRef.current = false;
    }
  };

  return (
    <form
      className="panel form wide"
      onSubmit={(event) => void form.handleSubmit(save)(event)}
      noValidate
      aria-label="Script"
    >
      {errors.root?.message && (
        <p className="alert error" role="alert">
          {errors.root.message}
        </p>
      )}
      {readOnly && (
        <ReadOnlyNotice permission="writeRules">
          Your role can read scripts but not create or change them.
        </ReadOnlyNotice>
      )}
      <FormField label="Name" required error={errors.name?.message} hint="Unique among scripts.">
        {(a11y) => (
          <input
            {...a11y}
            {...form.register("name")}
            className="input"
            autoComplete="off"
            readOnly={readOnly}
          />
        )}
      </FormField>
      {children}
      <div className={`form-field${errors.data ? " has-error" : ""}`}>
        <div className="editor-heading">
          <span id={sourceLabelId} className="form-label">
            Python source
            <span className="required" aria-hidden="true">
              {" "}
              *
            </span>
          </span>
          {!readOnly && (
            <label className="button small file-button">
              Load from a file…
              <input
                type="file"
                accept=".py,text/x-python,text/plain"
                className="visually-hidden"
                aria-label="Load the script source from a file"
                onChange={(event) => void loadFile(event.target.files?.[0])}
              />
            </label>
          )}
        </div>
        {!readOnly && (
          <p className="form-hint">Paste or write the source here, or load it from a .py file.</p>
        )}
        {loadedFile && (
          <p className="form-hint" role="status">
            {loadedFile}
          </p>
        )}
        <Controller
          control={form.control}
          name="data"
          render={({ field }) => (
            <SourceEditor
              value={field.value}
              onChange={field.onChange}
              error={errors.data?.message}
              labelId={sourceLabelId}
              errorId={sourceErrorId}
              readOnly={readOnly}
              focusRef={field.ref}
            />
          )}
        />
        {errors.data?.message && (
          <p id={sourceErrorId} className="form-error">
            {errors.data.message}
          </p>
        )}
      </div>
      <div className="form-actions">
        <button
          type="button"
          className="button"
          onClick={() => {
            leavingRef.current = true;
            onCancel();
          }}
        >
          {isDirty ? "Discard changes" : "Back to scripts"}
        </button>
        {!readOnly && (
          <button type="submit" className="button primary" disabled={isSubmitting}>
            {isSubmitting ? "Saving…" : submitLabel}
          </button>
        )}
      </div>
      <ConfirmDialog
        open={blocker.status === "blocked"}
        onOpenChange={(open) => {
          if (!open) blocker.reset?.();
        }}
        title="Discard your changes?"
        confirmLabel="Discard changes"
        onConfirm={() => blocker.proceed?.()}
      >
        The script has changes that are not saved. Leaving now loses them.
      </ConfirmDialog>
    </form>
  );
}

export function ScriptNewPage() {
  const trpc = useTRPC();
  const navigate = useNavigate();
  const refreshAll = useRefreshAll();
  const create = useMutation(trpc.pyscripts.scripts.create.mutationOptions());
  return (
    <section>
      <Breadcrumbs crumbs={[{ label: "Scripts", to: "/pyscripts" }, { label: "New script" }]} />
      <header className="page-header">
        <h1>New script</h1>
      </header>
      <ScriptForm
        defaults={{ name: "", data: "" }}
        submitLabel="Create script"
        onCancel={() => void navigate({ to: "/pyscripts" })}
        onSave={async (values) => {
          const script = await create.mutateAsync(values);
          toast.success(`Script “${script.name}” created`);
          await refreshAll();
          await navigate({ to: "/pyscripts/$scriptId", params: { scriptId: script.script_id } });
        }}
      />
    </section>
  );
}

export function ScriptPage() {
  const trpc = useTRPC();
  const { scriptId } = route.useParams();
  const script = useQuery(trpc.pyscripts.scripts.get.queryOptions({ script_id: scriptId }));
  return (
    <QueryState
      query={script}
      notFound={<MissingRecord what="Script" backTo="/pyscripts" backLabel="Back to scripts" />}
    >
      {(data) => <ScriptDetails key={data.script_id} script={data} />}
    </QueryState>
  );
}

type ConflictChoice = "reload" | "reapply" | "keep";

/** The source's lines that differ, in words (the editor shows the source itself). */
function describeSource(key: keyof ScriptFormValues, value: unknown): string {
  const text = typeof value === "string" ? value : "";
  if (key === "name") return text.trim() || "(none)";
  const lines = text.split("\n").length;
  return `${lines} line${lines === 1 ? "" : "s"}, ${text.length} characters`;
}

function ScriptDetails({ script }: { script: TScript & { revision?: number | undefined } }) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const navigate = useNavigate();
  const refreshAll = useRefreshAll();
  const conflictAuthor = useConflictAuthor();
  const update = useMutation(trpc.pyscripts.scripts.update.mutationOptions());
  const [deleting, setDeleting] = useState(false);
  // The revision the editor shows: background refetches do not replace what the operator is
  // typing, so a save names it and a change made meanwhile comes back as a conflict.
  const [readRevision, setReadRevision] = useState(script.revision);
  const [conflict, setConflict] = useState<{
    info: ConflictInfo;
    differences: FieldDifference[];
    choose: (choice: ConflictChoice) => void;
  } | null>(null);

  const save = async (values: ScriptFormValues) => {
    let expected = readRevision;
    for (;;) {
      try {
        const saved = await update.mutateAsync({
          script_id: script.script_id,
          ...values,
          revision: expected,
        });
        toast.success(`Script “${saved.name}” saved`);
        await refreshAll();
        setReadRevision(saved.revision);
        return;
      } catch (error) {
        if (!isConflict(error)) throw error;
        const current = await client.pyscripts.scripts.get.query({ script_id: script.script_id });
        const info = await conflictAuthor(script.script_id, conflictOf(error));
        const differences = diffValues(
          { name: current.name, data: current.data ?? "" },
          values,
          { name: "Name", data: "Source" },
          describeSource,
        );
        const choice = await new Promise<ConflictChoice>((choose) =>
          setConflict({ info, differences, choose }),
        );
        setConflict(null);
        if (choice === "keep") throw error;
        if (choice === "reload") {
          await refreshAll();
          // A new key: the editor starts again from the current script.
          setReadRevision(current.revision);
          return;
        }
        expected = current.revision;
      }
    }
  };

  return (
    <section>
      <Breadcrumbs crumbs={[{ label: "Scripts", to: "/pyscripts" }, { label: script.name }]} />
      <RecordHeader
        eyebrow="Script"
        name={script.name}
        id={script.script_id}
        noun="script"
        onDelete={() => setDeleting(true)}
      />
      <ScriptForm
        key={readRevision ?? script.checksum}
        defaults={{ name: script.name, data: script.data ?? "" }}
        submitLabel="Save changes"
        onCancel={() => void navigate({ to: "/pyscripts" })}
        onSave={save}
      >
        <div className="form-field">
          <span className="form-label">
            Checksum (SHA-512 of the source, computed by the server)
          </span>
          <code className="checksum full" aria-label="Checksum">
            {script.checksum}
          </code>
        </div>
      </ScriptForm>
      {deleting && (
        <DeleteScriptDialog
          script={{ ...script, revision: readRevision }}
          onClose={() => setDeleting(false)}
          onDeleted={() => navigate({ to: "/pyscripts" })}
        />
      )}
      <ConflictDialog
        open={conflict !== null}
        title="This script was changed by someone else"
        conflict={conflict?.info ?? null}
        differences={conflict?.differences ?? null}
        onReload={() => conflict?.choose("reload")}
        onReapply={() => conflict?.choose("reapply")}
        onClose={() => conflict?.choose("keep")}
      />
    </section>
  );
}
