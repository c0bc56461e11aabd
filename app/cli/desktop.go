package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/tofu-research/tofu/backend/desktop"
	"github.com/tofu-research/tofu/backend/desktop/atspi"
	"github.com/tofu-research/tofu/backend/tools/procgroup"
)

// desktopCLI holds what the desktop commands share: the flags common to all, and how to start
// this program again (the clipboard's server outlives the command that set it).
type desktopCLI struct {
	display string
	asJSON  bool
	// self is this program with other arguments (tests run the test binary as `tofu`).
	self func(args ...string) *exec.Cmd
}

func newDesktopCmd() *cobra.Command {
	c := &desktopCLI{self: func(args ...string) *exec.Cmd {
		exe, err := os.Executable()
		if err != nil {
			exe = os.Args[0]
		}
		return exec.Command(exe, args...)
	}}
	return c.command()
}

func (c *desktopCLI) command() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "desktop",
		Short: "See and drive the X11 desktop: windows, screenshots, mouse, keyboard, clipboard",
		Long: "The desktop tools from the command line, for scripts and tests. They act at once when you run\n" +
			"them; inside an agent turn the same actions go through the approval service. See docs/DESKTOP.md.",
	}
	cmd.PersistentFlags().StringVar(&c.display, "display", "", "X display (default $DISPLAY)")
	cmd.PersistentFlags().BoolVar(&c.asJSON, "json", false, "print JSON")
	cmd.AddCommand(c.windows(), c.screenshot(), c.click(), c.typeText(), c.key(), c.clipboard(), c.windowCmd(), c.tree())
	return cmd
}

// withDesktop connects to the display for one command, runs fn and disconnects.
func (c *desktopCLI) withDesktop(cmd *cobra.Command, fn func(d *desktop.Desktop) error) error {
	ctx, cancel := context.WithTimeout(cmd.Context(), 10*time.Second)
	d, err := desktop.Open(ctx, c.display)
	cancel()
	if err != nil {
		return err
	}
	defer d.Close()
	return fn(d)
}

// withWindows runs fn on the list of windows, the display still open (tree reads AT-SPI meanwhile).
func (c *desktopCLI) withWindows(cmd *cobra.Command, fn func(ws []desktop.Window) error) error {
	return c.withDesktop(cmd, func(d *desktop.Desktop) error {
		ws, err := d.Windows()
		if err != nil {
			return err
		}
		return fn(ws)
	})
}

func (c *desktopCLI) print(w io.Writer, v any, text func()) error {
	if c.asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	text()
	return nil
}

func (c *desktopCLI) windows() *cobra.Command {
	return &cobra.Command{
		Use:   "windows",
		Short: "List the windows: id, class, title, pid, geometry, desktop, focus",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return c.withWindows(cmd, func(ws []desktop.Window) error {
				out := cmd.OutOrStdout()
				return c.print(out, ws, func() {
					tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
					fmt.Fprintln(tw, "ID\tCLASS\tPID\tGEOMETRY\tDESKTOP\tTITLE")
					for _, w := range ws {
						mark := ""
						if w.Focused {
							mark = " (focused)"
						}
						fmt.Fprintf(tw, "%#x\t%s\t%d\t%dx%d+%d+%d\t%d\t%s%s\n", w.ID, w.Class, w.PID, w.Rect.W, w.Rect.H, w.Rect.X, w.Rect.Y, w.Desktop, w.Title, mark)
					}
					tw.Flush()
				})
			})
		},
	}
}

// parseID reads a window id in decimal (xdotool) or hex (xwininfo, `tofu desktop windows`).
func parseID(s string) (uint32, error) {
	n, err := strconv.ParseUint(s, 0, 32)
	if err != nil {
		return 0, fmt.Errorf("window id %q: write it as 0x1c00003 or 29360131", s)
	}
	return uint32(n), nil
}

func (c *desktopCLI) screenshot() *cobra.Command {
	var window, region, output string
	var maxW int
	cmd := &cobra.Command{
		Use:   "screenshot",
		Short: "Save a PNG of the screen, a region (--region X,Y,W,H) or a window (--window ID)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var shot desktop.Shot
			err := c.withDesktop(cmd, func(d *desktop.Desktop) (err error) {
				shot, err = capture(d, window, region)
				return err
			})
			if err != nil {
				return err
			}
			shot = shot.Downscale(maxW, 0)
			if output == "" {
				output = fmt.Sprintf("screenshot-%s.png", time.Now().Format("20060102-150405"))
			}
			f, err := os.Create(output)
			if err != nil {
				return err
			}
			if err := png.Encode(f, shot.Image); err != nil {
				f.Close()
				return fmt.Errorf("write %s: %w", output, err)
			}
			if err := f.Close(); err != nil {
				return err
			}
			res := struct {
				Path  string        `json:"path"`
				Frame desktop.Frame `json:"frame"`
			}{output, shot.Frame}
			return c.print(cmd.OutOrStdout(), res, func() {
				fmt.Fprintf(cmd.OutOrStdout(), "%s: %dx%d of the screen at %d,%d (scale %.3g)\n", output, shot.Frame.W, shot.Frame.H, shot.Frame.X, shot.Frame.Y, shot.Frame.Scale)
			})
		},
	}
	cmd.Flags().StringVar(&window, "window", "", "capture this window (id from `tofu desktop windows`)")
	cmd.Flags().StringVar(&region, "region", "", "capture X,Y,W,H of the screen")
	cmd.Flags().StringVarP(&output, "output", "o", "", "PNG file to write (default screenshot-TIME.png)")
	cmd.Flags().IntVar(&maxW, "max-width", 0, "downscale to at most this width (0: full size)")
	return cmd
}

// capture takes the window named by id, else the region X,Y,W,H, else the whole screen.
func capture(d *desktop.Desktop, window, region string) (desktop.Shot, error) {
	switch {
	case window != "":
		id, err := parseID(window)
		if err != nil {
			return desktop.Shot{}, err
		}
		return d.WindowShot(id)
	case region != "":
		var r desktop.Rect
		if _, err := fmt.Sscanf(region, "%d,%d,%d,%d", &r.X, &r.Y, &r.W, &r.H); err != nil {
			return desktop.Shot{}, fmt.Errorf("--region %q: write X,Y,W,H", region)
		}
		return d.Region(r)
	}
	return d.Screenshot()
}

func (c *desktopCLI) click() *cobra.Command {
	var button string
	var double bool
	cmd := &cobra.Command{
		Use:   "click X Y",
		Short: "Click at screen coordinates X Y (--button left|middle|right, --double)",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			x, err1 := strconv.Atoi(args[0])
			y, err2 := strconv.Atoi(args[1])
			if err := errors.Join(err1, err2); err != nil {
				return fmt.Errorf("X and Y are whole numbers: %w", err)
			}
			b, err := desktop.ParseButton(button)
			if err != nil {
				return err
			}
			n := 1
			if double {
				n = 2
			}
			return c.withDesktop(cmd, func(d *desktop.Desktop) error { return d.Click(x, y, b, n) })
		},
	}
	cmd.Flags().StringVar(&button, "button", "left", "left, middle or right")
	cmd.Flags().BoolVar(&double, "double", false, "double-click")
	return cmd
}

func (c *desktopCLI) typeText() *cobra.Command {
	return c.input("type TEXT", "Type TEXT (any Unicode) into the focused window", (*desktop.Desktop).Type)
}

func (c *desktopCLI) key() *cobra.Command {
	return c.input("key COMBO", "Press a key combination in the focused window (ctrl+s, alt+F4, Return, ctrl+shift+t)", (*desktop.Desktop).Key)
}

// input is a command that sends its one argument to the focused window as keystrokes.
func (c *desktopCLI) input(use, short string, send func(d *desktop.Desktop, ctx context.Context, arg string) error) *cobra.Command {
	return &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.withDesktop(cmd, func(d *desktop.Desktop) error { return send(d, cmd.Context(), args[0]) })
		},
	}
}

// windowCmd arranges one window: focus, raise, move, close.
func (c *desktopCLI) windowCmd() *cobra.Command {
	var geometry string
	cmd := &cobra.Command{
		Use:   "window focus|raise|close|move ID",
		Short: "Focus, raise, close or move/resize (--geometry X,Y,W,H; -1 keeps a value) a window",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseID(args[1])
			if err != nil {
				return err
			}
			return c.withDesktop(cmd, func(d *desktop.Desktop) error {
				switch args[0] {
				case "focus":
					return d.Focus(id)
				case "raise":
					return d.Raise(id)
				case "close":
					return d.CloseWindow(id)
				case "move":
					var x, y, w, h int
					if _, err := fmt.Sscanf(geometry, "%d,%d,%d,%d", &x, &y, &w, &h); err != nil {
						return fmt.Errorf("--geometry %q: write X,Y,W,H (-1 keeps a value)", geometry)
					}
					return d.MoveResize(id, x, y, w, h)
				}
				return fmt.Errorf("unknown window action %q (focus, raise, close or move)", args[0])
			})
		},
	}
	cmd.Flags().StringVar(&geometry, "geometry", "", "for move: X,Y,W,H")
	return cmd
}

func (c *desktopCLI) clipboard() *cobra.Command {
	var set, selection string
	var serve bool
	cmd := &cobra.Command{
		Use:   "clipboard",
		Short: "Print the clipboard's text, or put text on it with --set TEXT",
		Long: "Prints the clipboard (or --selection primary). With --set, a background `tofu` keeps\n" +
			"serving the text to other apps until one of them copies something else, as xclip does.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch {
			case serve:
				return c.serveClipboard(cmd, selection)
			case cmd.Flags().Changed("set"):
				return c.setClipboard(cmd, selection, set)
			}
			var text string
			err := c.withDesktop(cmd, func(d *desktop.Desktop) (err error) {
				ctx, cancel := context.WithTimeout(cmd.Context(), 5*time.Second)
				defer cancel()
				text, err = d.ReadClipboard(ctx, selection)
				return err
			})
			if err != nil {
				return err
			}
			return c.print(cmd.OutOrStdout(), map[string]string{"selection": selection, "text": text}, func() {
				fmt.Fprint(cmd.OutOrStdout(), text)
			})
		},
	}
	cmd.Flags().StringVar(&set, "set", "", "put this text on the clipboard")
	cmd.Flags().StringVar(&selection, "selection", desktop.SelClipboard, "clipboard or primary")
	cmd.Flags().BoolVar(&serve, "serve", false, "")
	cmd.Flags().MarkHidden("serve")
	return cmd
}

// setClipboard starts `tofu desktop clipboard --serve` in the background with the text on its
// standard input, and returns once it owns the selection.
func (c *desktopCLI) setClipboard(cmd *cobra.Command, selection, text string) error {
	args := []string{"desktop", "clipboard", "--serve", "--selection", selection}
	if c.display != "" {
		args = append(args, "--display", c.display)
	}
	srv := c.self(args...)
	srv.Stdin = strings.NewReader(text)
	out, err := srv.StdoutPipe()
	if err != nil {
		return err
	}
	srv.Stderr = cmd.ErrOrStderr()
	// Its own session: closing the terminal that ran `--set` does not take the clipboard away.
	procgroup.Detach(srv)
	if err := srv.Start(); err != nil {
		return fmt.Errorf("start the clipboard server: %w", err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	if strings.TrimSpace(line) != "ok" {
		srv.Wait()
		return errors.New("the clipboard server did not take the clipboard")
	}
	// The server goes on alone; its pipe closes when it exits.
	return srv.Process.Release()
}

// serveClipboard owns the selection with the text read from stdin until another app takes it.
func (c *desktopCLI) serveClipboard(cmd *cobra.Command, selection string) error {
	text, err := io.ReadAll(cmd.InOrStdin())
	if err != nil {
		return err
	}
	return c.withDesktop(cmd, func(d *desktop.Desktop) error {
		lost, err := d.WriteClipboard(selection, string(text))
		if err != nil {
			return err
		}
		fmt.Fprintln(cmd.OutOrStdout(), "ok")
		if f, ok := cmd.OutOrStdout().(*os.File); ok {
			f.Close()
		}
		select {
		case <-lost:
		case <-cmd.Context().Done():
		}
		return nil
	})
}

func (c *desktopCLI) tree() *cobra.Command {
	var window string
	cmd := &cobra.Command{
		Use:   "tree",
		Short: "Print the accessibility tree (AT-SPI) of the focused window, or of --window ID",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return c.withWindows(cmd, func(ws []desktop.Window) error {
				var target *desktop.Window
				for i := range ws {
					if window == "" && ws[i].Focused {
						target = &ws[i]
					} else if window != "" {
						if id, err := parseID(window); err == nil && id == ws[i].ID {
							target = &ws[i]
						}
					}
				}
				if target == nil {
					return errors.New("no window has the focus; name one with --window ID")
				}
				ctx, cancel := context.WithTimeout(cmd.Context(), 10*time.Second)
				defer cancel()
				bus, err := atspi.Connect(ctx)
				if err != nil {
					return fmt.Errorf("%w; use `tofu desktop screenshot` instead", err)
				}
				defer bus.Close()
				tree, err := bus.Snapshot(ctx, target.PID, target.Title)
				if err != nil {
					return fmt.Errorf("%s %q: %w; use `tofu desktop screenshot` instead", target.Label(), target.Title, err)
				}
				return c.print(cmd.OutOrStdout(), tree, func() { fmt.Fprint(cmd.OutOrStdout(), tree.String()) })
			})
		},
	}
	cmd.Flags().StringVar(&window, "window", "", "window id (default the focused window)")
	return cmd
}
