package desktop

import "errors"

// Windows has no System V shared memory; an X server there (VcXsrv, Xming) is read with GetImage.
var errNoSysv = errors.New("no System V shared memory on Windows")

func sysvAttach(int) (int, []byte, error) { return 0, nil, errNoSysv }
func sysvRemove(int)                      {}
func sysvDetach([]byte)                   {}
