// WindowOperator is not reentrant: the refusal of a call made from inside
// another call of the same operator.

/**
 * The error for a call of WindowOperator's `method` made while its
 * `running` method runs (from its window function, trigger or output).
 */
export function reentryError(method: string, running: string): Error {
  return new Error(
    `Cannot call WindowOperator.${method} from inside a call of the same operator (e.g. from its window function or trigger): current call is WindowOperator.${running}`,
  );
}
