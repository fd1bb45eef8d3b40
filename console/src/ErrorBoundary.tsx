import { Component, type ReactNode } from 'react';

/** A page that fails to render says so instead of blanking the whole console. */
export class ErrorBoundary extends Component<{ children: ReactNode; page: string }, { error?: Error }> {
  override state: { error?: Error } = {};

  static getDerivedStateFromError(error: Error) {
    return { error };
  }

  override componentDidUpdate(previous: { page: string }) {
    if (previous.page !== this.props.page && this.state.error) this.setState({ error: undefined });
  }

  override render() {
    if (this.state.error) {
      return (
        <p className="error" role="alert">
          This page failed: {this.state.error.message}
        </p>
      );
    }
    return this.props.children;
  }
}
