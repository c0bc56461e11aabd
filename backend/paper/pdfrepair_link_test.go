package paper_test

// The extractor's tests repair files as the tofu program does: with pdfcpu, in process
// (linked here, in the test binary the package's own tests run in too).
import _ "github.com/tofu-research/tofu/backend/paper/pdfrepair"
