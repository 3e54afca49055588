package cluster

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
)

// User is the name the Cluster's token authenticates as; it is in the
// system:masters group.
const User = "admin"

// credentials are the files kube-apiserver needs to authenticate clients
// and sign service account tokens.
type credentials struct {
	token     string
	tokenFile string // --token-auth-file
	saKeyFile string // --service-account-signing-key-file (RSA private key)
	saPubFile string // --service-account-key-file (its public key)
	certDir   string // --cert-dir, where kube-apiserver writes its self-signed serving cert
}

// writeCredentials creates a random bearer token and an RSA service
// account key pair under dir.
func writeCredentials(dir string) (credentials, error) {
	c := credentials{
		tokenFile: filepath.Join(dir, "tokens.csv"),
		saKeyFile: filepath.Join(dir, "sa.key"),
		saPubFile: filepath.Join(dir, "sa.pub"),
		certDir:   filepath.Join(dir, "certs"),
	}
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return credentials{}, fmt.Errorf("%w: token: %v", ErrStart, err)
	}
	c.token = hex.EncodeToString(raw)
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return credentials{}, fmt.Errorf("%w: service account key: %v", ErrStart, err)
	}
	pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return credentials{}, fmt.Errorf("%w: service account public key: %v", ErrStart, err)
	}
	files := []struct {
		path string
		data []byte
	}{
		{c.tokenFile, fmt.Appendf(nil, "%s,%s,%s,\"system:masters\"\n", c.token, User, User)},
		{c.saKeyFile, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})},
		{c.saPubFile, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub})},
	}
	for _, f := range files {
		if err := os.WriteFile(f.path, f.data, 0o600); err != nil {
			return credentials{}, fmt.Errorf("%w: %v", ErrStart, err)
		}
	}
	if err := os.Mkdir(c.certDir, 0o700); err != nil {
		return credentials{}, fmt.Errorf("%w: %v", ErrStart, err)
	}
	return c, nil
}
