package sandbox

// Network lets a sandboxed process reach hosts through Tofu's proxy, which decides each host
// (see Proxy). Inside, a forwarder of Tofu's own program listens on loopback and carries each
// connection over a Unix socket bound into the sandbox to the proxy outside: the process has
// no other way out of its network namespace.
type Network struct {
	// Socket is the proxy's Unix socket on the host.
	Socket string
}

// inside returns bubblewrap's arguments and the environment for a process using n.
func (n *Network) inside(env []string) ([]string, []string) {
	return nil, env // the forwarder comes with the proxy (proxy.go)
}
