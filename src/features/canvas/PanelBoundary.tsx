import { Component, type ErrorInfo, type ReactNode } from 'react';

interface Props {
  /** The part in words, as the message names it: "The Tests panel". */
  name: string;
  /**
   * What the part computes from (the definition): when it changes, a failed part tries
   * again. A peer's big paste arrives in batches, and a chart XState refuses halfway
   * through (a compound whose initial state has not arrived yet) is whole a moment later.
   */
  resetKey?: unknown;
  children: ReactNode;
}

interface State {
  error: Error | null;
  resetKey: unknown;
}

/**
 * Keeps one part of the machine page (a dock panel, the inspector, the diagram) from
 * taking the page down with it: a render that throws shows a message in that part
 * alone, with the reason and a way to try again, and the rest of the page carries on.
 * React catches render errors only in a class component's lifecycle, hence the class.
 */
export class PanelBoundary extends Component<Props, State> {
  override state: State = { error: null, resetKey: this.props.resetKey };

  static getDerivedStateFromError(error: unknown): Partial<State> {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  static getDerivedStateFromProps(props: Props, state: State): Partial<State> | null {
    return props.resetKey === state.resetKey ? null : { resetKey: props.resetKey, error: null };
  }

  override componentDidCatch(error: unknown, info: ErrorInfo): void {
    // Said once in the console with where it happened, for whoever reports it.
    console.error(`${this.props.name} failed:`, error, info.componentStack);
  }

  private readonly retry = () => this.setState({ error: null });

  override render(): ReactNode {
    const { error } = this.state;
    if (!error) return this.props.children;
    return (
      <div className="message error part-failed" role="alert" data-failed-part={this.props.name}>
        <p>
          <strong>{this.props.name} stopped working</strong>: {error.message}
        </p>
        <p>The rest of the page works. It tries again when the machine changes.</p>
        <button type="button" onClick={this.retry}>
          Try again
        </button>
      </div>
    );
  }
}
